package main

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// tandem's own process shows no credential in /proc/PID/environ (nor in
// its threads' copies, nor in `ps e`): a command the model runs reads
// tandem's environment there, and redacting output is no defence (`tr`
// turns the key into something else). tandem still uses the key.
func TestE2ECredentialsAreNotInTandemsEnviron(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("probe", "Bash", map[string]any{"command": "sh ./probe.sh"})),
		scripted.TextStep("done"),
	}})
	const key = "sk-ant-e2e-procs-0123456789abcdef"
	const other = "corp-secret-e2e-procs-0123456789"
	x.Env = append(x.Env, "ANTHROPIC_API_KEY="+key, "CORP_LLM_TOKEN="+other)
	// A script, so the command line the model sends names nothing the
	// permission engine would stop; what it reads goes to a file, past
	// the output redaction.
	x.WriteFile("probe.sh", "cat /proc/$PPID/environ > seen.txt\n"+
		"for f in /proc/$PPID/task/*/environ; do cat \"$f\"; done >> seen.txt\n"+
		"ps -o args= e -p $PPID >> seen.txt 2>/dev/null\n"+
		"ls -l /proc/$PPID/fd >> seen.txt\n"+
		"echo probed\n")
	r := x.RunStream("read tandem's environment", "--permission-mode", "trust")
	mustSucceed(t, r)
	if out := toolResults(r)["probe"].Output; !strings.Contains(out, "probed") {
		t.Fatalf("the probe did not run: %q", out)
	}
	seen := x.ReadFile("seen.txt")
	if !strings.Contains(seen, "HOME=") {
		t.Fatalf("the probe read no environment:\n%s", seen)
	}
	for _, v := range []string{key, other} {
		if strings.Contains(seen, v) {
			t.Errorf("tandem's process shows %q:\n%s", v, seen)
		}
	}
	if strings.Contains(seen, "memfd:") {
		t.Errorf("the hand-over descriptor is still open:\n%s", seen)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) == 0 || reqs[0].Header.Get("X-Api-Key") != key {
		t.Errorf("the provider did not get the key from the moved environment: %v", reqs)
	}
}

// `tandem serve --token` works, says what is better, and the token is not
// in the process's command line (nor its environment) once it runs;
// --token-file is the way that never shows it.
func TestE2EServeTokenIsNotInTheProcessTable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	const token = "e2e-serve-argv-token-0123456789"
	tokenFile := filepath.Join(x.Home, "token.txt")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, how := range [][]string{{"--token", token}, {"--token=" + token}, {"--token-file", tokenFile}} {
		addr := freeAddr(t)
		p := x.Start(append([]string{"serve", "--addr", addr}, how...)...)
		base := "http://" + addr
		waitFor(t, "the server to listen", 10*time.Second, func() bool {
			resp, err := http.Get(base + "/api/health")
			if err == nil {
				resp.Body.Close()
			}
			return err == nil
		})
		req, _ := http.NewRequest("GET", base+"/api/sessions", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%v: the token was not taken: %d", how, resp.StatusCode)
		}
		pid := strconv.Itoa(p.cmd.Process.Pid)
		for _, f := range []string{"cmdline", "environ"} {
			b, err := os.ReadFile("/proc/" + pid + "/" + f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), token) {
				t.Errorf("%v: /proc/PID/%s holds the token: %q", how, f, b)
			}
		}
		if strings.HasPrefix(how[0], "--token") && how[0] != "--token-file" && !strings.Contains(p.Stderr(), "--token-file") {
			t.Errorf("%v: no advice to use --token-file:\n%s", how, p.Stderr())
		}
		p.Signal(syscall.SIGTERM)
		p.Wait(30 * time.Second)
	}
}
