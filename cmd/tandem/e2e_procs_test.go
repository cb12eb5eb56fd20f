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
	t.Parallel()
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
	// The script's parent is the Bash tool's shell, whose parent is tandem.
	x.WriteFile("probe.sh", "T=$(ps -o ppid= -p $PPID | tr -d ' ')\n"+
		"cat /proc/$T/cmdline | tr '\\0' ' ' | grep -q tandem || exit 7\n"+
		"cat /proc/$T/environ > seen.txt\n"+
		"for f in /proc/$T/task/*/environ; do cat \"$f\"; done >> seen.txt\n"+
		"ps -o args= e -p $T >> seen.txt 2>/dev/null\n"+
		"ls -l /proc/$T/fd >> seen.txt\n"+
		"echo probed\n")
	r := x.RunStream("read tandem's environment", "--permission-mode", "trust")
	mustSucceed(t, r)
	if out := toolResults(r)["probe"].Output; !strings.Contains(out, "probed") {
		t.Fatalf("the probe did not run: %q", out)
	}
	seen := x.ReadFile("seen.txt")
	if !strings.Contains(seen, "HOME=") || strings.Contains(seen, "TANDEM_PROCESS_TAG") {
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
	t.Parallel()
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
		waitListening(t, base)
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

// kill -9 of tandem in the middle of a command: the command and what it
// left behind, even a process that shed tandem's tag with `env -i`, are
// gone soon after (the bash got a death signal, the session's watchdog
// killed its process group).
func TestE2EKilledTandemTakesItsCommandsAlong(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("death signals and /proc are Linux's")
	}
	marker := sleepMarker()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "env -i /bin/sh -c 'echo $$ > shed.pid; exec sleep 1000' >/dev/null 2>&1 & sleep " + marker})),
		scripted.TextStep("never"),
	}})
	p := x.Start(streamArgs("wait", "--permission-mode", "trust")...)
	var shed int
	waitFor(t, "the command to start", 20*time.Second, func() bool {
		shed, _ = strconv.Atoi(strings.TrimSpace(x.ReadFile("shed.pid")))
		return shed > 0 && len(pidsWithArg(t, marker)) > 0
	})
	fg := pidsWithArg(t, marker)
	p.Signal(syscall.SIGKILL)
	p.Wait(30 * time.Second)
	for _, pid := range append(fg, shed) {
		waitFor(t, "process "+strconv.Itoa(pid)+" to end with tandem", 15*time.Second, func() bool { return isZombie(pid) })
	}
}
