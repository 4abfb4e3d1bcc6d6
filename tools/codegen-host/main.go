// Command codegen-host is a Pulumi language host that adds the v3.274.1 code generators to an older language host.
//
// The Go module proxy this project builds from serves the Pulumi CLI v3.274.1 but no language host of that release;
// the newest hosts it serves (nodejs and python from sdk/v3 v3.68.0, go from v3.62.0) run programs but do not
// implement the LanguageRuntime code-generation RPCs the CLI calls for `pulumi package gen-sdk`, `pulumi package add`
// and `pulumi import`. This wrapper is installed under the host's name (pulumi-language-<lang>); the CLI starts it as
// it starts any language host. It starts the old host (pulumi-language-<lang>-<version> beside it, found by prefix)
// with the same arguments (preceded by the project's runtime options as flags, as the CLI of its release passed them:
// options.go), serves GeneratePackage, GenerateProject, GenerateProgram and Link itself (pkg/v3's code
// generators; Link for nodejs and python), and forwards every other call to the old host byte for byte.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// hostLanguage is the language a binary named pulumi-language-<lang> serves.
func hostLanguage(exe string) (string, error) {
	name := strings.TrimSuffix(filepath.Base(exe), ".exe")
	lang, ok := strings.CutPrefix(name, "pulumi-language-")
	if !ok || lang == "" {
		return "", fmt.Errorf("binary %q is not named pulumi-language-<nodejs|python|go>: rename it", name)
	}
	if _, known := generators[lang]; !known {
		return "", fmt.Errorf("language %q has no code generator here: name the binary pulumi-language-nodejs, -python or -go", lang)
	}
	return lang, nil
}

// wrappedHost is the old host beside this binary: the one file named pulumi-language-<lang>-v<version>.
func wrappedHost(self, lang string) (string, error) {
	pattern := filepath.Join(filepath.Dir(self), "pulumi-language-"+lang+"-v*")
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return "", err
	}
	if len(matches) != 1 {
		return "", fmt.Errorf("expected exactly one old host matching %s, found %d: run npm run pulumi:build", pattern, len(matches))
	}
	return matches[0], nil
}

func run() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	self, err = filepath.EvalSymlinks(self)
	if err != nil {
		return err
	}
	lang, err := hostLanguage(os.Args[0])
	if err != nil {
		return err
	}
	old, err := wrappedHost(self, lang)
	if err != nil {
		return err
	}

	flags, err := projectFlags(lang, workingDirectory())
	if err != nil {
		return err
	}
	child := exec.Command(old, append(flags, os.Args[1:]...)...)
	child.Stdin = os.Stdin
	child.Stderr = os.Stderr
	child.SysProcAttr = childAttributes()
	stdout, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return fmt.Errorf("start %s: %w", old, err)
	}
	// A host reports its port as the first line of its stdout; anything after it is passed through.
	lines := bufio.NewReader(stdout)
	first, err := lines.ReadString('\n')
	if err != nil {
		_ = child.Process.Kill()
		return fmt.Errorf("%s exited before printing its port: %w", filepath.Base(old), err)
	}
	oldPort := strings.TrimSpace(first)

	port, stop, err := serve(lang, "127.0.0.1:"+oldPort)
	if err != nil {
		_ = child.Process.Kill()
		return err
	}
	defer stop()
	fmt.Printf("%d\n", port)

	go func() { _, _ = lines.WriteTo(os.Stdout) }()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for s := range signals {
			_ = child.Process.Signal(s)
		}
	}()
	// The wrapper lives exactly as long as the old host: the CLI stops a host by killing it, and the old host
	// decides when to exit (for example when the engine at its address goes away).
	if err := child.Wait(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok {
			stop()
			os.Exit(exit.ExitCode())
		}
		return err
	}
	return nil
}
