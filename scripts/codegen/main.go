// Command pulumi-gamehost-codegen runs Pulumi's own code generators (pkg/v3, the CLI's version) on the
// gamehost schema, in process. The CLI hands code generation to the language hosts (GeneratePackage,
// GenerateProgram), and the hosts this machine can build (sdk v3.68.0, go v3.62.0) predate those calls:
// this tool calls the functions the current hosts call, so the suite checks the generated code anyway.
//
//	pulumi-gamehost-codegen sdk <schema.json> <python|go|nodejs> <out dir>
//	pulumi-gamehost-codegen program <schema.json> <pcl dir> <python|nodejs|go> <out dir>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// loader serves the one bound package (none while binding it); our schema and programs reference nothing else.
type loader struct{ pkg *schema.Package }

func (l loader) find(name string) (*schema.Package, error) {
	if l.pkg == nil || name != l.pkg.Name {
		return nil, fmt.Errorf("package %q is not loaded: the gamehost schema references no other package", name)
	}
	return l.pkg, nil
}

func (l loader) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return l.find(name)
}
func (l loader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.find(d.Name)
}
func (l loader) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	p, err := l.find(name)
	if err != nil {
		return nil, err
	}
	return p.Reference(), nil
}
func (l loader) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pulumi-gamehost-codegen: "+format+"\n", args...)
	os.Exit(1)
}

func report(diags hcl.Diagnostics) {
	for _, d := range diags {
		level := "warning"
		if d.Severity == hcl.DiagError {
			level = "error"
		}
		fmt.Fprintf(os.Stderr, "%s: %s: %s\n", level, d.Summary, d.Detail)
	}
	if diags.HasErrors() {
		os.Exit(1)
	}
}

// bind reads and validates the schema as `pulumi package gen-sdk` does, printing its diagnostics.
func bind(path string) *schema.Package {
	raw, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		fail("%s: %v", path, err)
	}
	pkg, diags, err := schema.BindSpec(spec, loader{}, schema.ValidationOptions{})
	if err != nil {
		fail("%v", err)
	}
	report(diags)
	return pkg
}

func write(out string, files map[string][]byte) {
	for name, body := range files {
		full := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			fail("%v", err)
		}
		if err := os.WriteFile(full, body, 0o644); err != nil {
			fail("%v", err)
		}
	}
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: sdk <schema.json> <language> <out> | program <schema.json> <pcl dir> <language> <out>")
	}
	switch os.Args[1] {
	case "sdk":
		if len(os.Args) != 5 {
			fail("usage: sdk <schema.json> <python|go|nodejs> <out>")
		}
		pkg := bind(os.Args[2])
		l := loader{pkg}
		var files map[string][]byte
		var err error
		switch os.Args[3] {
		case "python":
			files, err = python.GeneratePackage("pulumi-language-python", pkg, nil, l)
		case "go":
			files, err = gogen.GeneratePackage("pulumi-language-go", pkg, nil)
		case "nodejs":
			files, err = nodejs.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, true, l)
		default:
			fail("unknown language %q: use python, go or nodejs", os.Args[3])
		}
		if err != nil {
			fail("%v", err)
		}
		write(os.Args[4], files)
	case "program":
		if len(os.Args) != 6 {
			fail("usage: program <schema.json> <pcl dir> <python|nodejs|go> <out>")
		}
		pkg := bind(os.Args[2])
		program, diags, err := pcl.BindDirectory(os.Args[3], loader{pkg}, pcl.NonStrictBindOptions()...)
		if err != nil {
			fail("%v", err)
		}
		report(diags)
		var files map[string][]byte
		switch os.Args[4] {
		case "python":
			files, diags, err = python.GenerateProgram(program)
		case "nodejs":
			files, diags, err = nodejs.GenerateProgram(program)
		case "go":
			files, diags, err = gogen.GenerateProgram(program)
		default:
			fail("unknown language %q: use python, nodejs or go", os.Args[4])
		}
		if err != nil {
			fail("%v", err)
		}
		report(diags)
		write(os.Args[5], files)
	default:
		fail("unknown command %q: use sdk or program", os.Args[1])
	}
}
