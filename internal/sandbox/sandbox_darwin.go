//go:build darwin

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/tandem-agent/tandem/internal/sandbox/netproxy"
)

// ExecArg is the hidden subcommand Confine runs: `tandem __sandbox-exec
// POLICY PATH ARGV...`. cmd/tandem hands os.Args[2:] to Exec.
const ExecArg = "__sandbox-exec"

// sandboxExec is macOS's sandbox launcher (Seatbelt).
const sandboxExec = "/usr/bin/sandbox-exec"

// confineAttr: macOS has no namespaces; the profile is the boundary.
func confineAttr(*exec.Cmd, bool) error { return nil }

func probeKernel(c *Capabilities, _ string) {
	if st, err := os.Stat(sandboxExec); err == nil && !st.IsDir() {
		c.SandboxExec = sandboxExec
	}
}

// Exec is the launcher on macOS: it starts the forward to tandem's proxy
// on loopback (outside the profile), then runs the command under
// sandbox-exec with the policy as a profile (SBPL), and returns its exit
// status. Not tested on macOS by tandem's own tests (docs/sandbox.md).
func Exec(args []string) int {
	if len(args) < 3 {
		return fail(errors.New("usage: tandem __sandbox-exec POLICY PATH ARGV... (started by tandem, not by hand: use `tandem sandbox run -- CMD`)"))
	}
	p, err := decodePolicy(args[0])
	if err != nil {
		return fail(err)
	}
	env := os.Environ()
	if p.Network.ProxySocket != "" {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return fail(fmt.Errorf("listen on loopback for the proxy: %w", err))
		}
		go netproxy.Forward(context.Background(), ln, p.Network.ProxySocket)
		url := "http://127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
			env = replaceEnv(env, k, url)
		}
		for _, k := range []string{"NO_PROXY", "no_proxy"} {
			env = replaceEnv(env, k, "localhost,127.0.0.1,::1")
		}
	}
	if p.TempDir != "" {
		env = replaceEnv(env, "TMPDIR", p.TempDir)
	}
	argv := append([]string{sandboxExec, "-p", SBPL(p), args[1]}, args[3:]...)
	cmd := &exec.Cmd{Path: sandboxExec, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	for i := 0; i < p.ExtraFiles; i++ {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(3+i), "extra"))
	}
	return relay(cmd)
}

// fail reports a launcher error with status 125 (as on Linux).
func fail(err error) int {
	fmt.Fprintln(os.Stderr, "tandem sandbox:", err)
	return 125
}

func replaceEnv(env []string, k, v string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}
