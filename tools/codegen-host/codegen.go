package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// packageGenerator writes the SDK of a bound package as files relative to the SDK's directory.
type packageGenerator func(tool string, pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
	loader schema.ReferenceLoader) (map[string][]byte, error)

// programGenerator writes a bound PCL program as source files of the language.
type programGenerator func(program *pcl.Program) (map[string][]byte, hcl.Diagnostics, error)

// projectGenerator writes a bound PCL program as a project of the language (source, Pulumi.yaml, package files).
type projectGenerator func(directory string, project workspace.Project, program *pcl.Program,
	localDependencies map[string]string) error

type language struct {
	pkg     packageGenerator
	program programGenerator
	project projectGenerator
}

// generators are pkg/v3's code generators, called as the v3.274.1 hosts call them.
var generators = map[string]language{
	"nodejs": {
		pkg: func(tool string, pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
			loader schema.ReferenceLoader,
		) (map[string][]byte, error) {
			return nodejs.GeneratePackage(tool, pkg, req.ExtraFiles, req.LocalDependencies, req.Local, loader)
		},
		program: nodejs.GenerateProgram,
		project: func(dir string, project workspace.Project, program *pcl.Program, deps map[string]string) error {
			return nodejs.GenerateProject(dir, project, program, deps, false, project.Runtime.Name())
		},
	},
	"python": {
		pkg: func(tool string, pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
			loader schema.ReferenceLoader,
		) (map[string][]byte, error) {
			return python.GeneratePackage(tool, pkg, req.ExtraFiles, loader)
		},
		program: python.GenerateProgram,
		project: func(dir string, project workspace.Project, program *pcl.Program, deps map[string]string) error {
			return python.GenerateProject(dir, project, program, deps, "", "")
		},
	},
	"go": {
		pkg: func(tool string, pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
			_ schema.ReferenceLoader,
		) (map[string][]byte, error) {
			files, err := gogen.GeneratePackage(tool, pkg, req.LocalDependencies)
			if err != nil {
				return nil, err
			}
			for name, content := range req.ExtraFiles {
				files[name] = content
			}
			return files, nil
		},
		program: gogen.GenerateProgram,
		project: gogen.GenerateProject,
	},
}

// generator serves the code-generation methods of the LanguageRuntime service for one language.
type generator struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	lang string
	old  pulumirpc.LanguageRuntimeClient // the wrapped host
}

func (g *generator) tool() string { return "pulumi-language-" + g.lang }

// GeneratePackage binds the request's schema (loading referenced packages through the engine's loader) and writes
// the language's SDK into the requested directory.
func (g *generator) GeneratePackage(
	ctx context.Context, req *pulumirpc.GeneratePackageRequest,
) (_ *pulumirpc.GeneratePackageResponse, err error) {
	defer recoverAs(&err, "generating the "+g.lang+" SDK")
	loader, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return nil, err
	}
	defer loader.Close()
	cached := schema.NewCachedLoader(loader)

	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.Schema), &spec); err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON: %w", err)
	}
	pkg, diags, err := schema.BindSpecWithContext(ctx, spec, cached, schema.ValidationOptions{})
	if err != nil {
		return nil, err
	}
	response := &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}
	if diags.HasErrors() {
		return response, nil
	}

	files, err := generators[g.lang].pkg(g.tool(), pkg, req, cached)
	if err != nil {
		return nil, err
	}
	if err := writeFiles(req.Directory, files); err != nil {
		return nil, err
	}
	return response, nil
}

// GenerateProgram binds a PCL program (as `pulumi import` and `pulumi convert` send it) and returns its source in
// the language.
func (g *generator) GenerateProgram(
	ctx context.Context, req *pulumirpc.GenerateProgramRequest,
) (_ *pulumirpc.GenerateProgramResponse, err error) {
	defer recoverAs(&err, "generating the "+g.lang+" program")
	loader, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	parser := syntax.NewParser()
	for name, source := range req.Source {
		if err := parser.ParseFile(strings.NewReader(source), name); err != nil {
			return nil, err
		}
	}
	if parser.Diagnostics.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{
			Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(parser.Diagnostics),
		}, nil
	}

	var options []pcl.BindOption
	if !req.Strict {
		options = pcl.NonStrictBindOptions()
	}
	program, diags, err := pcl.BindProgramWithContext(ctx, parser.Files, schema.NewCachedLoader(loader), options...)
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, nil
	}

	files, genDiags, err := generators[g.lang].program(program)
	if err != nil {
		return nil, err
	}
	diags = append(diags, genDiags...)
	return &pulumirpc.GenerateProgramResponse{
		Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags),
		Source:      files,
	}, nil
}

// GenerateProject binds the PCL program in the source directory (as `pulumi convert` sends it) and writes it as a
// project of the language into the target directory.
func (g *generator) GenerateProject(
	_ context.Context, req *pulumirpc.GenerateProjectRequest,
) (_ *pulumirpc.GenerateProjectResponse, err error) {
	defer recoverAs(&err, "generating the "+g.lang+" project")
	loader, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	var project workspace.Project
	if err := json.Unmarshal([]byte(req.Project), &project); err != nil {
		return nil, fmt.Errorf("the project is not valid JSON: %w", err)
	}
	var options []pcl.BindOption
	if !req.Strict {
		options = pcl.NonStrictBindOptions()
	}
	program, diags, err := pcl.BindDirectory(req.SourceDirectory, schema.NewCachedLoader(loader), options...)
	if err != nil {
		return nil, err
	}
	response := &pulumirpc.GenerateProjectResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}
	if diags.HasErrors() {
		return response, nil
	}
	if err := generators[g.lang].project(req.TargetDirectory, project, program, req.LocalDependencies); err != nil {
		return nil, err
	}
	return response, nil
}

// recoverAs turns a panic of a code generator (pkg/v3 asserts that the code it generates parses) into the call's
// error, so the CLI reports it instead of losing the host.
func recoverAs(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s failed inside pkg/v3's code generator: %v", what, r)
	}
}

// writeFiles writes generated files (paths relative to dir, '/'-separated) under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
