package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// With the sandbox on and trust mode, what leaves the sandbox is refused
// by the kernel (or the proxy) and each refusal is a sandbox_denial event;
// what stays inside runs.
func TestE2ESandboxTrustMode(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("SERVED")) })}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("key", "Bash", map[string]any{"command": "cat ~/.ssh/id_rsa"})),
		scripted.ToolStep(scripted.CallID("out", "Bash", map[string]any{"command": "echo x > ../outside.txt"})),
		scripted.ToolStep(scripted.CallID("net", "Bash", map[string]any{"command": "curl -sS -m 10 --noproxy '' " + url})),
		scripted.ToolStep(scripted.CallID("job", "Bash", map[string]any{"command": "echo y > ../outside-job.txt", "run_in_background": true})),
		scripted.ToolStep(scripted.CallID("in", "Bash", map[string]any{"command": "echo inside > in.txt && cat in.txt"})),
		scripted.TextStep("Done."),
	}})
	os.MkdirAll(filepath.Join(x.Home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(x.Home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600)
	r := x.RunStream("try", "--permission-mode", "trust", "--sandbox")
	if r.Code != 0 && strings.Contains(r.Stderr, "cannot run here") {
		t.Skipf("sandbox unavailable: %s", r.Stderr)
	}
	mustSucceed(t, r)
	if strings.Contains(r.Stdout, "PRIVATE KEY") || strings.Contains(r.Stdout, "SERVED") {
		t.Errorf("a secret or the outside server reached the stream")
	}
	for _, f := range []string{"outside.txt", "outside-job.txt"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(x.Work), f)); err == nil {
			t.Errorf("%s was written outside the workspace", f)
		}
	}
	if x.ReadFile("in.txt") != "inside\n" {
		t.Errorf("the command inside the workspace did not run")
	}
	kinds := map[string]int{}
	for _, e := range r.Events {
		if e.Type == event.SandboxDenial {
			kinds[e.Meta["kind"].(string)+":"+e.Meta["rule"].(string)]++
		}
	}
	if kinds["file:sandbox: secret path (not readable)"] == 0 || kinds["file:sandbox: outside the writable folders"] == 0 ||
		kinds["network:not on sandbox.network.allow"] == 0 {
		t.Errorf("sandbox_denial events: %v", kinds)
	}
	// The session's sandbox process (its policy names the workspace) ended
	// with the session.
	waitFor(t, "the session's sandbox process to end", 15*time.Second, func() bool {
		return len(sandboxProcesses(x.Work)) == 0
	})
}

// sandboxProcesses are the pids of the sandbox processes and launchers
// whose command line names dir.
func sandboxProcesses(dir string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), sandbox.ExecArg) && strings.Contains(string(b), dir) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func TestE2ESandboxRunRefuses(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	os.MkdirAll(filepath.Join(x.Home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(x.Home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600)
	r := x.Run("sandbox", "run", "--", "cat", filepath.Join(x.Home, ".ssh", "id_rsa"))
	if r.Code == 0 || strings.Contains(r.Stdout, "PRIVATE KEY") || !strings.Contains(r.Stderr, "Permission denied") {
		t.Errorf("sandbox run cat key: code %d, out %q, err %q", r.Code, r.Stdout, r.Stderr)
	}
	r = x.Run("sandbox", "run", "--", "sh", "-c", "echo ok > in.txt && cat in.txt")
	if r.Code != 0 || !strings.Contains(r.Stdout, "ok") {
		t.Errorf("sandbox run inside: code %d, out %q, err %q", r.Code, r.Stdout, r.Stderr)
	}
	r = x.Run("sandbox", "check")
	if r.Code != 0 || !strings.Contains(r.Stdout, "landlock ABI") {
		t.Errorf("sandbox check: code %d, out %q, err %q", r.Code, r.Stdout, r.Stderr)
	}
}

// Without namespaces (the fallback: a machine where user namespaces are
// off) a command's only way out is still tandem's proxy, on the one
// loopback port Landlock lets it connect to: an allow-listed host is
// reached through it, another host is refused by the proxy.
func TestE2ESandboxFallbackNetworkThroughProxy(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed (apt-get install curl)")
	}
	serve := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("SERVED")) })}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return ln.Addr().String()
	}
	allowed, other := serve(), serve()
	x := newE2E(t, scripted.Script{})
	x.WriteConfig(`{"sandbox":{"network":{"allow":["` + allowed + `"]}}}`)
	r := x.Run("sandbox", "run", "--no-namespaces", "--", "curl", "-fsS", "-m", "10", "--noproxy", "", "http://"+allowed+"/")
	if r.Code != 0 && strings.Contains(r.Stderr, "cannot run here") {
		t.Skipf("no fallback sandbox on this machine: %s", r.Stderr)
	}
	if r.Code != 0 || !strings.Contains(r.Stdout, "SERVED") {
		t.Errorf("an allow-listed host without namespaces: code %d, out %q, err %q; want it reached through the proxy", r.Code, r.Stdout, r.Stderr)
	}
	r = x.Run("sandbox", "run", "--no-namespaces", "--", "curl", "-fsS", "-m", "10", "--noproxy", "", "http://"+other+"/")
	if r.Code == 0 || strings.Contains(r.Stdout, "SERVED") {
		t.Errorf("a host not on the list without namespaces: code %d, out %q, err %q; want it refused", r.Code, r.Stdout, r.Stderr)
	}
}
