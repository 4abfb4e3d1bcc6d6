// Command pulumi-gamehost-codegen runs Pulumi's own code generators (pkg/v3, the CLI's version) on the
// gamehost schema, in process. The CLI hands code generation to the language hosts (GeneratePackage,
// GenerateProgram), and the hosts this machine can build (sdk v3.68.0, go v3.62.0) predate those calls:
// this tool calls the functions the current hosts call, so the suite checks the generated code anyway.
//
//	pulumi-gamehost-codegen sdk <schema.json> <python|go|nodejs> <out dir>
//	pulumi-gamehost-codegen import-code <schema.json> <stack export.json> <python|nodejs|go> <type>
//
// import-code prints the code `pulumi import` prints for the stack's resources of <type> (run after
// `pulumi import`, on `pulumi stack export --show-secrets`): the importer's PCL, then the generator.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/pkg/v3/importer"
	pkgresource "github.com/pulumi/pulumi/pkg/v3/resource"
	"github.com/pulumi/pulumi/pkg/v3/resource/stack"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
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
		fail("usage: sdk <schema.json> <language> <out> | import-code <schema.json> <export.json> <language> <type>")
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
	case "import-code":
		if len(os.Args) != 6 {
			fail("usage: import-code <schema.json> <stack export.json> <python|nodejs|go> <type>")
		}
		importCode(bind(os.Args[2]), os.Args[3], os.Args[4], os.Args[5])
	default:
		fail("unknown command %q: use sdk or import-code", os.Args[1])
	}
}

func generator(language string) func(*pcl.Program) (map[string][]byte, hcl.Diagnostics, error) {
	switch language {
	case "python":
		return python.GenerateProgram
	case "nodejs":
		return nodejs.GenerateProgram
	case "go":
		return gogen.GenerateProgram
	}
	fail("unknown language %q: use python, nodejs or go", language)
	return nil
}

// importCode does what `pulumi import` does after the import step (generateImportedDefinitions), with the
// program generator in process instead of the language host's GenerateProgram.
func importCode(pkg *schema.Package, exportFile, language, typ string) {
	raw, err := os.ReadFile(exportFile)
	if err != nil {
		fail("%v", err)
	}
	var export struct {
		Deployment apitype.DeploymentV3 `json:"deployment"`
	}
	if err := json.Unmarshal(raw, &export); err != nil {
		fail("%s: %v", exportFile, err)
	}
	var snapshot, imported []*pkgresource.State
	for _, r := range export.Deployment.Resources {
		state, err := stack.DeserializeResource(r, config.NopDecrypter)
		if err != nil {
			fail("%v", err)
		}
		snapshot = append(snapshot, state)
		if string(state.Type) == typ {
			imported = append(imported, state)
		}
	}
	if len(imported) == 0 {
		fail("the stack has no resource of type %s", typ)
	}
	generate := generator(language)
	err = importer.GenerateLanguageDefinitions(os.Stdout, loader{pkg}, func(w io.Writer, p *pcl.Program) error {
		files, diags, err := generate(p)
		if err != nil {
			return err
		}
		report(diags)
		for _, body := range files {
			if _, err := w.Write(body); err != nil {
				return err
			}
		}
		return nil
	}, imported, snapshot, nil)
	if err != nil {
		fail("%v", err)
	}
}
