package main

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
)

// RunPlugin runs a nodejs plugin folder (PulumiPlugin.yaml `runtime: nodejs`), as `pulumi package add <plugin
// folder>` asks for its schema: the v3.68.0 nodejs host answers "not supported". It does what current nodejs hosts
// do for a resource plugin: `node <@pulumi/pulumi/cmd/run-plugin, resolved from the folder> <folder> <args…>` in
// the request's directory and environment, streaming the output and then the exit code. Anything else goes to
// the old host.
func (g *generator) RunPlugin(
	req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	dir := req.GetInfo().GetProgramDirectory()
	if g.lang != "nodejs" || req.GetKind() != "resource" || dir == "" {
		return g.forwardRunPlugin(req, server)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return err
	}
	resolve := exec.CommandContext(server.Context(), node, "-p",
		"require.resolve('@pulumi/pulumi/cmd/run-plugin', { paths: [process.argv[1]] })", dir)
	out, err := resolve.Output()
	if err != nil {
		return errors.New("the plugin folder " + dir + " cannot require @pulumi/pulumi/cmd/run-plugin: " + err.Error())
	}
	args := append([]string{strings.TrimSpace(string(out)), dir}, req.GetArgs()...)
	cmd := exec.CommandContext(server.Context(), node, args...)
	cmd.Dir = req.GetPwd()
	cmd.Env = req.GetEnv()

	var mu sync.Mutex // one Send at a time
	send := func(res *pulumirpc.RunPluginResponse) error {
		mu.Lock()
		defer mu.Unlock()
		return server.Send(res)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var wg sync.WaitGroup
	relay := func(r io.Reader, wrap func([]byte) *pulumirpc.RunPluginResponse) {
		defer wg.Done()
		buf := make([]byte, 32*1024)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				_ = send(wrap(append([]byte(nil), buf[:n]...)))
			}
			if err != nil {
				return
			}
		}
	}
	wg.Add(2)
	go relay(stdout, func(b []byte) *pulumirpc.RunPluginResponse {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}}
	})
	go relay(stderr, func(b []byte) *pulumirpc.RunPluginResponse {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}}
	})
	wg.Wait()
	code := 0
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return err
		}
		code = exit.ExitCode()
	}
	return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(code)}})
}

func (g *generator) forwardRunPlugin(
	req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	stream, err := g.old.RunPlugin(server.Context(), req)
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
