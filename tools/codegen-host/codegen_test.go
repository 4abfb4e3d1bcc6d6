package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	codegenrpc "github.com/pulumi/pulumi/sdk/v3/proto/go/codegen"
	"google.golang.org/grpc"
)

// schemaLoader serves the repository's plugin/schema.json as the engine's loader would.
type schemaLoader struct{ pkg *schema.Package }

func (l schemaLoader) LoadPackage(string, *semver.Version) (*schema.Package, error) {
	return l.pkg, nil
}

func (l schemaLoader) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return l.pkg, nil
}

func (l schemaLoader) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return l.pkg.Reference(), nil
}

func (l schemaLoader) LoadPackageReferenceV2(
	context.Context, *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return l.pkg.Reference(), nil
}

// startLoader serves plugin/schema.json over the codegen Loader service and returns its address.
func startLoader(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "plugin", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	// The schema references no other package, so the loader it is bound with is never asked.
	pkg, diags, err := schema.BindSpec(spec, schemaLoader{}, schema.ValidationOptions{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("binding plugin/schema.json: %v %v", err, diags)
	}
	server := grpc.NewServer()
	codegenrpc.RegisterLoaderServer(server, schema.NewLoaderServer(schemaLoader{pkg}))
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	return listener.Addr().String()
}

// GenerateProgram is what `pulumi import` calls; it needs a live resource through the CLI, so it is tested here.
func TestGenerateProgram(t *testing.T) {
	loader := startLoader(t)
	source := `resource lobby "gamehost:index:LobbyHistoryExport" {
  gameId     = "g-1"
  queryStart = "2026-01-01T00:00:00Z"
  queryEnd   = "2026-01-02T00:00:00Z"
}
`
	expected := map[string][2]string{
		"python": {"__main__.py", `gamehost.LobbyHistoryExport("lobby",`},
		"nodejs": {"index.ts", `new gamehost.LobbyHistoryExport("lobby", {`},
		"go":     {"main.go", `gamehost.NewLobbyHistoryExport(ctx, "lobby", &gamehost.LobbyHistoryExportArgs{`},
	}
	for lang, want := range expected {
		t.Run(lang, func(t *testing.T) {
			g := &generator{lang: lang}
			resp, err := g.GenerateProgram(context.Background(), &pulumirpc.GenerateProgramRequest{
				Source:       map[string]string{"main.pp": source},
				LoaderTarget: loader,
				Strict:       true,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Diagnostics) > 0 {
				t.Fatalf("diagnostics: %v", resp.Diagnostics)
			}
			if got := string(resp.Source[want[0]]); !strings.Contains(got, want[1]) {
				t.Fatalf("%s lacks %q:\n%s", want[0], want[1], got)
			}
		})
	}
}

// A PCL error comes back as diagnostics, not as a failed call.
func TestGenerateProgramDiagnostics(t *testing.T) {
	g := &generator{lang: "python"}
	resp, err := g.GenerateProgram(context.Background(), &pulumirpc.GenerateProgramRequest{
		Source:       map[string]string{"main.pp": "resource lobby {\n"},
		LoaderTarget: startLoader(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) == 0 || len(resp.Source) != 0 {
		t.Fatalf("want diagnostics and no source, got %v and %d files", resp.Diagnostics, len(resp.Source))
	}
}
