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
// folder>` asks for its schema, and a nodejs policy pack folder (PulumiPolicy.yaml, kind "analyzer"), as
// `pulumi preview --policy-pack <folder>` starts it: the v3.68.0 nodejs host answers "not supported" to both. It
// does what current nodejs hosts do: for a resource plugin `node <@pulumi/pulumi/cmd/run-plugin> <folder> <args…>`
// in the request's directory; for a policy pack `node <@pulumi/pulumi/cmd/run-policy-pack> <args…> <folder>` in
// the pack's folder (the module resolved from the folder), with the request's environment, streaming the output
// and then the exit code. (Current hosts also put the stack's config in a policy pack's environment,
// PULUMI_CONFIG; this one does not.) Anything else goes to the old host.
func (g *generator) RunPlugin(
	req *pulumirpc.RunPluginRequest, server grpc.ServerStreamingServer[pulumirpc.RunPluginResponse],
) error {
	dir := req.GetInfo().GetProgramDirectory()
	policy := req.GetKind() == "analyzer"
	if g.lang != "nodejs" || (req.GetKind() != "resource" && !policy) || dir == "" {
		return g.forwardRunPlugin(req, server)
	}
	module := "@pulumi/pulumi/cmd/run-plugin"
	if policy {
		module = "@pulumi/pulumi/cmd/run-policy-pack"
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return err
	}
	resolve := exec.CommandContext(server.Context(), node, "-p",
		"require.resolve(process.argv[1], { paths: [process.argv[2]] })", module, dir)
	out, err := resolve.Output()
	if err != nil {
		return errors.New("the plugin folder " + dir + " cannot require " + module + ": " + err.Error())
	}
	script := strings.TrimSpace(string(out))
	args := append([]string{script, dir}, req.GetArgs()...)
	cmd := exec.CommandContext(server.Context(), node)
	cmd.Dir = req.GetPwd()
	if policy {
		// run-policy-pack takes <engine address> <pack folder>: the folder comes last, and the pack runs in it.
		args = append(append([]string{script}, req.GetArgs()...), dir)
		cmd.Dir = dir
	}
	cmd.Args = append([]string{node}, args...)
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
