package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The old host gets the flags the CLI of its release passed: the project's known options and -root, from the
// Pulumi.yaml of the folder the host is started in (or above it); nothing for another runtime or no project.
func TestProjectFlags(t *testing.T) {
	root := t.TempDir()
	manifest := "name: p\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n    toolchain: pip\n"
	if err := os.WriteFile(filepath.Join(root, "Pulumi.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, sub} {
		flags, err := projectFlags("python", dir)
		if err != nil {
			t.Fatal(err)
		}
		// toolchain is newer than the v3.68.0 host, which would exit on the unknown flag.
		if want := []string{"-virtualenv=venv", "-root=" + root}; !reflect.DeepEqual(flags, want) {
			t.Errorf("from %s: flags %q, want %q", dir, flags, want)
		}
	}
	if flags, err := projectFlags("nodejs", root); err != nil || flags != nil {
		t.Errorf("another runtime's host: flags %q, err %v; want none", flags, err)
	}
	if flags, err := projectFlags("python", t.TempDir()); err != nil || flags != nil {
		t.Errorf("no project: flags %q, err %v; want none", flags, err)
	}
}

// A plugin folder whose package.json declares no dependencies, with node_modules above it, needs no install.
func TestPluginWithoutDependencies(t *testing.T) {
	root := t.TempDir()
	plugin := filepath.Join(root, "node_modules", "pkg", "plugin")
	if err := os.MkdirAll(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(plugin, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("PulumiPlugin.yaml", "runtime: nodejs\n")
	write("package.json", `{"name": "p", "main": "x"}`)
	if !pluginWithoutDependencies(plugin) {
		t.Error("a plugin folder with no dependencies under node_modules: want true")
	}
	write("package.json", `{"name": "p", "dependencies": {"left-pad": "1"}}`)
	if pluginWithoutDependencies(plugin) {
		t.Error("a plugin folder with dependencies: want false (npm install must run)")
	}
	if pluginWithoutDependencies(root) {
		t.Error("a folder with no PulumiPlugin.yaml: want false")
	}
}
