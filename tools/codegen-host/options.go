package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
)

// oldHostFlags are the runtime options (Pulumi.yaml `runtime.options`) each old host reads as command-line flags.
// The CLI of the old hosts' release passed `-<option>=<value>` for every option and `-root=<project dir>`; the
// v3.274.1 CLI passes them in each request's ProgramInfo instead, which the old hosts never read, so without
// this `runtime.options.virtualenv` was silently ignored. Options of newer releases (toolchain, packagemanager)
// are left out: the old hosts would exit on a flag they do not define.
var oldHostFlags = map[string][]string{
	"nodejs": {"typescript", "tsconfig", "nodeargs"},
	"python": {"virtualenv"},
	"go":     {"binary", "buildTarget"},
}

// projectFlags are the flags the old CLI gave a host started in dir for a project of runtime lang: `-root` and
// the project's known options, or none when dir is in no project of that runtime (a plugin run from another
// project, `pulumi package gen-sdk` outside a project).
func projectFlags(lang, dir string) ([]string, error) {
	path, err := workspace.DetectProjectPathFrom(dir)
	if err != nil || path == "" {
		return nil, nil //nolint:nilerr // no project: nothing to pass, as the old CLI passed nothing either
	}
	project, err := workspace.LoadProject(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s for its runtime options: %w", path, err)
	}
	if project.Runtime.Name() != lang {
		return nil, nil
	}
	options := project.Runtime.Options()
	names := make([]string, 0, len(options))
	for name := range options {
		names = append(names, name)
	}
	sort.Strings(names)
	var flags []string
	for _, name := range names {
		for _, known := range oldHostFlags[lang] {
			if name == known {
				flags = append(flags, fmt.Sprintf("-%s=%v", name, options[name]))
			}
		}
	}
	return append(flags, "-root="+filepath.Dir(path)), nil
}

// workingDirectory is where the CLI started this host (its plugin context's directory).
func workingDirectory() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	return dir
}
