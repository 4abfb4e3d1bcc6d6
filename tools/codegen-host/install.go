package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// InstallDependencies forwards to the old host, except for a nodejs plugin folder whose package.json declares no
// dependencies (`pulumi package add <plugin folder>`, which installs the folder before running it). There
// `npm install` has nothing to install and makes no node_modules folder; the v3.68.0 host then fails with "npm
// install reported success, but node_modules directory is missing", where current hosts look for node_modules
// up the tree and go on. The wrapper answers as they do, without running npm.
func (g *generator) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetDirectory() //nolint:staticcheck // what older CLIs send
	}
	if g.lang == "nodejs" && pluginWithoutDependencies(dir) {
		return server.Send(&pulumirpc.InstallDependenciesResponse{
			Stdout: []byte("Nothing to install: the plugin's package.json declares no dependencies\n"),
		})
	}
	stream, err := g.old.InstallDependencies(server.Context(), req)
	if err != nil {
		return err
	}
	for {
		res, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := server.Send(res); err != nil {
			return err
		}
	}
}

// pluginWithoutDependencies: dir is a plugin folder (PulumiPlugin.yaml) whose package.json has no dependencies,
// and a node_modules folder above it holds what its code requires.
func pluginWithoutDependencies(dir string) bool {
	if dir == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "PulumiPlugin.yaml")); err != nil {
		return false
	}
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return false
	}
	var manifest struct {
		Dependencies         map[string]string `json:"dependencies"`
		DevDependencies      map[string]string `json:"devDependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	if json.Unmarshal(raw, &manifest) != nil {
		return false
	}
	if len(manifest.Dependencies)+len(manifest.DevDependencies)+len(manifest.OptionalDependencies) > 0 {
		return false
	}
	for up := filepath.Dir(dir); ; up = filepath.Dir(up) {
		if info, err := os.Stat(filepath.Join(up, "node_modules")); err == nil && info.IsDir() {
			return true
		}
		if filepath.Dir(up) == up {
			return false
		}
	}
}
