package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"golang.org/x/mod/modfile"
)

// Link records generated SDKs (`pulumi package add`, `convert`) as dependencies of the project; the CLI then asks
// the old host to install the project's dependencies, which it knows how to do. nodejs: a `file:` dependency in
// package.json (a local SDK compiles itself in its postinstall script); python: the SDK's folder as a line of
// requirements.txt; go: a `replace` of the SDK's module by its folder in go.mod, as current go hosts do (the old
// host's InstallDependencies, `go mod tidy`, then adds the requirement the program's import asks for).
func (g *generator) Link(ctx context.Context, req *pulumirpc.LinkRequest) (*pulumirpc.LinkResponse, error) {
	if len(req.Packages) == 0 {
		// `pulumi convert` links even when the program uses no package.
		return &pulumirpc.LinkResponse{}, nil
	}
	root := req.GetInfo().GetRootDirectory()
	switch g.lang {
	case "nodejs":
		return linkNodejs(root, req.Packages)
	case "python":
		return linkPython(root, req.Packages)
	case "go":
		return linkGo(req.GetInfo().GetProgramDirectory(), root, req.Packages)
	}
	return g.old.Link(ctx, req)
}

func linkNodejs(root string, packages []*pulumirpc.LinkRequest_LinkDependency) (*pulumirpc.LinkResponse, error) {
	if _, err := os.Stat(filepath.Join(root, "package.json")); err != nil {
		return nil, fmt.Errorf("linking needs the project's package.json: %w", err)
	}
	// `npm pkg set` edits package.json as npm itself would (order and formatting kept); the bracket form takes
	// names with dots and slashes.
	args := []string{"pkg", "set"}
	var instructions []string
	for _, dep := range packages {
		var sdk struct {
			Name string `json:"name"`
		}
		sdkManifest := filepath.Join(root, dep.Path, "package.json")
		raw, err := os.ReadFile(sdkManifest)
		if err == nil {
			err = json.Unmarshal(raw, &sdk)
		}
		if err != nil || sdk.Name == "" {
			return nil, fmt.Errorf("the generated SDK has no package.json with a name at %s", sdkManifest)
		}
		args = append(args, fmt.Sprintf("dependencies[%s]=file:%s", sdk.Name, filepath.ToSlash(dep.Path)))
		alias := strings.ReplaceAll(dep.GetPackage().GetName(), "-", "")
		instructions = append(instructions, fmt.Sprintf("  import * as %s from %q;", alias, sdk.Name))
	}
	npm := exec.Command("npm", args...)
	npm.Dir = root
	if out, err := npm.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("npm %s failed: %w\n%s", strings.Join(args, " "), err, out)
	}
	return &pulumirpc.LinkResponse{
		ImportInstructions: "You can then import the SDK in your TypeScript code with:\n\n" +
			strings.Join(instructions, "\n") + "\n",
	}, nil
}

func linkPython(root string, packages []*pulumirpc.LinkRequest_LinkDependency) (*pulumirpc.LinkResponse, error) {
	requirements := filepath.Join(root, "requirements.txt")
	existing, err := os.ReadFile(requirements)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(existing), "\n"), "\n")
	if len(existing) == 0 {
		lines = nil
	}
	var instructions []string
	for _, dep := range packages {
		// pip reads a requirement with a slash as a local path, relative to where it runs (the project root).
		line := filepath.ToSlash(dep.Path)
		if !strings.HasPrefix(line, ".") && !strings.HasPrefix(line, "/") {
			line = "./" + line
		}
		present := false
		for _, l := range lines {
			present = present || strings.TrimSpace(l) == line
		}
		if !present {
			lines = append(lines, line)
		}
		module, err := pythonModule(filepath.Join(root, dep.Path))
		if err != nil {
			return nil, err
		}
		alias := strings.ReplaceAll(dep.GetPackage().GetName(), "-", "_")
		instructions = append(instructions, fmt.Sprintf("  import %s as %s", module, alias))
	}
	if err := os.WriteFile(requirements, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	return &pulumirpc.LinkResponse{
		ImportInstructions: "You can then import the SDK in your Python code with:\n\n" +
			strings.Join(instructions, "\n") + "\n",
	}, nil
}

// pythonModule is the package the generated Python SDK in dir provides: its one folder with an __init__.py.
func pythonModule(dir string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*", "__init__.py"))
	if err != nil {
		return "", err
	}
	sort.Strings(matches)
	if len(matches) != 1 {
		return "", fmt.Errorf("expected one Python package in the generated SDK at %s, found %d", dir, len(matches))
	}
	return filepath.Base(filepath.Dir(matches[0])), nil
}

func linkGo(program, root string, packages []*pulumirpc.LinkRequest_LinkDependency) (*pulumirpc.LinkResponse, error) {
	if program == "" {
		program = root
	}
	gomodPath := filepath.Join(program, "go.mod")
	raw, err := os.ReadFile(gomodPath)
	if err != nil {
		return nil, fmt.Errorf("linking needs the project's go.mod: %w", err)
	}
	gomod, err := modfile.Parse(gomodPath, raw, nil)
	if err != nil {
		return nil, err
	}
	var imports []string
	for _, dep := range packages {
		sdkMod := filepath.Join(root, dep.Path, "go.mod")
		sdkRaw, err := os.ReadFile(sdkMod)
		if err != nil {
			return nil, fmt.Errorf("the generated Go SDK has no go.mod at %s: %w", sdkMod, err)
		}
		module := modfile.ModulePath(sdkRaw)
		if module == "" {
			return nil, fmt.Errorf("the generated Go SDK's go.mod at %s names no module", sdkMod)
		}
		// A relative replacement must start with ./ (https://go.dev/ref/mod#go-mod-file-replace).
		target := filepath.ToSlash(dep.Path)
		if !strings.HasPrefix(target, ".") && !strings.HasPrefix(target, "/") {
			target = "./" + target
		}
		if err := gomod.AddReplace(module, "", target, ""); err != nil {
			return nil, err
		}
		packageDirs, err := filepath.Glob(filepath.Join(root, dep.Path, "*", "pulumi-plugin.json"))
		if err != nil {
			return nil, err
		}
		for _, manifest := range packageDirs {
			imports = append(imports, fmt.Sprintf("    %q", module+"/"+filepath.Base(filepath.Dir(manifest))))
		}
	}
	formatted, err := gomod.Format()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(gomodPath, formatted, 0o644); err != nil {
		return nil, err
	}
	sort.Strings(imports)
	return &pulumirpc.LinkResponse{
		ImportInstructions: "You can import the SDK in your Go code with:\n\n  import (\n" +
			strings.Join(imports, "\n") + "\n  )\n",
	}, nil
}
