package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The model runs `env` and friends in explore mode: neither the stream,
// the stored session nor a hook command's environment holds tandem's
// credentials.
func TestE2EShellSecretsNeverReachTheModel(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("env1", "Bash", map[string]any{"command": "env; printenv ANTHROPIC_API_KEY; printenv TANDEM_TOKEN"})),
		scripted.ToolStep(scripted.CallID("env2", "Bash", map[string]any{"command": "jq -n env"})),
		scripted.TextStep("done"),
	}})
	secretsByName := map[string]string{
		"ANTHROPIC_API_KEY":     "sk-ant-e2e-0123456789abcdef",
		"OPENAI_API_KEY":        "sk-openai-e2e-0123456789",
		"TANDEM_TOKEN":          "tandem-token-e2e-0123456789",
		"AWS_SECRET_ACCESS_KEY": "aws-secret-e2e-0123456789",
		"CORP_LLM_KEY":          "corp-llm-key-e2e-0123456789", // a configured provider's api_key_env
		"MY_DB_PASSWORD":        "db-password-e2e-0123456789",  // listed in secrets.env
	}
	for k, v := range secretsByName {
		x.Env = append(x.Env, k+"="+v)
	}
	hookOut := filepath.Join(x.Home, "hook-env.txt")
	cfg := `{"providers": {"corp": {"kind": "openai-compatible", "base_url": "http://127.0.0.1:1", "api_key_env": "CORP_LLM_KEY"}},
	  "secrets": {"env": ["MY_DB_PASSWORD"]}}`
	writeJSONFile(t, filepath.Join(x.Work, ".claude", "settings.json"), map[string]any{
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{
			"matcher": "Bash",
			"hooks":   []any{map[string]any{"type": "command", "command": "env > " + hookOut}},
		}}}})
	x.WriteConfig(cfg)
	// The hook is a project file: only a trusted folder's hooks run.
	r := x.RunStream("show me the environment", "--permission-mode", "explore", "--trust-project")
	mustSucceed(t, r)
	res := toolResults(r)
	if out := res["env1"].Output; !strings.Contains(out, "HOME=") || res["env1"].IsError && !strings.Contains(out, "Exit code") {
		t.Fatalf("env did not run: %+v", res["env1"])
	}
	stored := x.Run("sessions", "export", r.Result().SessionID)
	hook, err := os.ReadFile(hookOut)
	if err != nil || !strings.Contains(string(hook), "HOME=") {
		t.Fatalf("the hook did not run: %v %q", err, hook)
	}
	for where, text := range map[string]string{"stream": r.Stdout, "stored session": stored.Stdout + stored.Stderr, "hook environment": string(hook)} {
		for k, v := range secretsByName {
			if strings.Contains(text, v) {
				t.Errorf("%s holds %s", where, k)
			}
		}
	}
	if !strings.Contains(stored.Stdout, "HOME=") {
		t.Errorf("export lacks the tool result:\n%s", stored.Stdout)
	}
}

// Special files never block start-up: CLAUDE.md as a FIFO and .mcp.json as
// a FIFO are skipped (with a warning naming the file) and the turn runs.
func TestE2EFIFOInstructionsDoNotBlock(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hello")}})
	for _, name := range []string{"CLAUDE.md", ".mcp.json"} {
		if err := syscall.Mkfifo(filepath.Join(x.Work, name), 0o644); err != nil {
			t.Skip(err)
		}
	}
	r := x.RunStream("hi")
	mustSucceed(t, r)
	if !strings.Contains(r.Stdout+r.Stderr, filepath.Join(x.Work, "CLAUDE.md")) || !strings.Contains(r.Stdout+r.Stderr, "named pipe") {
		t.Errorf("no warning names the FIFO:\n%s\n%s", r.Stdout, r.Stderr)
	}
}

// Processes a command detaches (nohup, setsid, double fork) and background
// jobs do not outlive tandem.
func TestE2EDetachedProcessesEndWithTandem(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("process tags are read from /proc")
	}
	spawn := func(name string) string { return "sh -c 'echo $$ > " + name + "; exec sleep 1000'" }
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "nohup " + spawn("p1") + " >/dev/null 2>&1 & setsid " + spawn("p2") + " >/dev/null 2>&1 & ( " + spawn("p3") + " >/dev/null 2>&1 & ); sleep 0.3; echo ok"})),
		scripted.ToolStep(scripted.CallID("b2", "Bash", map[string]any{"command": spawn("p4"), "run_in_background": true})),
		scripted.ToolStep(scripted.CallID("b3", "Bash", map[string]any{"command": "sleep 0.3; cat p1 p2 p3 p4"})),
		scripted.TextStep("done"),
	}})
	r := x.RunStream("start things", "--permission-mode", "trust")
	mustSucceed(t, r)
	var pids []int
	for _, name := range []string{"p1", "p2", "p3", "p4"} {
		pid, err := strconv.Atoi(strings.TrimSpace(x.ReadFile(name)))
		if err != nil {
			t.Fatalf("%s: %v (%q)", name, err, x.ReadFile(name))
		}
		pids = append(pids, pid)
	}
	for i, pid := range pids {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && !strings.Contains(string(b), ") Z") {
			_ = syscall.Kill(pid, syscall.SIGKILL) // do not leave it behind
			t.Errorf("p%d (pid %d) outlived tandem", i+1, pid)
		}
	}
}

// A session's spill files go when the session is deleted.
func TestE2ESpillFilesDeletedWithTheSession(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("big", "Bash", map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' x"})),
		scripted.TextStep("done"),
	}})
	r := x.RunStream("print a lot")
	mustSucceed(t, r)
	spill, _ := toolResults(r)["big"].Meta["spill_path"].(string)
	if spill == "" {
		t.Fatalf("no spill file: %+v", toolResults(r)["big"])
	}
	if _, err := os.Stat(spill); err != nil {
		t.Fatal(err)
	}
	if del := x.Run("sessions", "delete", r.Result().SessionID); del.Code != 0 {
		t.Fatalf("delete: %s %s", del.Stdout, del.Stderr)
	}
	if _, err := os.Stat(filepath.Dir(spill)); err == nil {
		t.Errorf("the session's spill folder %s survived", filepath.Dir(spill))
	}
}

// In explore mode `cd evilbare && git status`, where evilbare is a git
// directory in the workspace whose config names a program, is denied and
// the program does not run; a clean repository's git status still runs.
func TestE2EGitRepositoryConfigDoesNotRunInExplore(t *testing.T) {
	t.Parallel()
	needProgram(t, "git")
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("evil", "Bash", map[string]any{"command": "cd evilbare && git status"})),
		scripted.ToolStep(scripted.CallID("sub", "Bash", map[string]any{"command": "cd sub && git status"})),
		scripted.ToolStep(scripted.CallID("clean", "Bash", map[string]any{"command": "cd clean && git status --short"})),
		scripted.TextStep("done"),
	}})
	marker := filepath.Join(x.Work, "MARKER")
	x.WriteFile("evil.sh", "#!/bin/sh\ntouch "+marker+"\n")
	os.Chmod(filepath.Join(x.Work, "evil.sh"), 0o755)
	for _, args := range [][]string{
		{"init", "-q", "--bare", "evilbare"},
		{"--git-dir=evilbare", "config", "core.bare", "false"},
		{"--git-dir=evilbare", "config", "core.worktree", ".."},
		{"--git-dir=evilbare", "config", "core.fsmonitor", filepath.Join(x.Work, "evil.sh")},
		{"init", "-q", "clean"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = x.Work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	x.WriteFile("sub/.git", "gitdir: ../evilbare\n")
	r := x.RunStream("look at the repositories", "--permission-mode", "explore")
	mustSucceed(t, r)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git ran the repository's core.fsmonitor")
	}
	denied := deniedIDs(r)
	for _, id := range []string{"evil", "sub"} {
		if _, ok := denied[id]; !ok || !strings.Contains(toolResults(r)[id].Output, "runs programs") {
			t.Errorf("%s: not denied with the reason: %+v", id, toolResults(r)[id])
		}
	}
	if _, ok := denied["clean"]; ok || toolResults(r)["clean"].IsError {
		t.Errorf("clean repository: %+v", toolResults(r)["clean"])
	}
}

// Under the claude-code runtime the CLI runs the model's commands; they
// still see none of tandem's credentials, not even the one the CLI holds.
func TestE2EClaudeCodeCommandsDoNotSeeCredentials(t *testing.T) {
	t.Parallel()
	cc := newClaudeCodeE2E(t, func(string) scripted.Script {
		return scripted.Script{Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("env1", "Bash", map[string]any{"command": "env; echo END"})),
			scripted.TextStep("done"),
		}}
	})
	cc.Env = append(cc.Env, "OPENAI_API_KEY=sk-openai-cc-0123456789", "TANDEM_TOKEN=tandem-token-cc-0123456789")
	r := cc.RunDetached(streamArgs("show the environment", "--runtime", "claude-code", "--permission-mode", "explore")...)
	mustSucceed(t, r)
	out := toolResults(r)["env1"].Output
	if !strings.Contains(out, "END") || !strings.Contains(out, "PATH=") {
		t.Fatalf("env did not run: %+v", toolResults(r)["env1"])
	}
	for _, bad := range []string{"ANTHROPIC_API_KEY=", "ANTHROPIC_AUTH_TOKEN=", "sk-openai-cc-0123456789", "tandem-token-cc-0123456789"} {
		if strings.Contains(out, bad) {
			t.Errorf("the command saw %s", bad)
		}
	}
}

// The server token in tandem's data folder is a credential: in explore
// mode neither Read nor a read-only shell command gets it to the model,
// even when the data folder is inside the workspace, and searches there
// skip the checkpoint snapshots.
func TestE2EServerTokenIsNotReadableInExplore(t *testing.T) {
	t.Parallel()
	const token = "e2e-server-token-0123456789abcdef"
	x := newE2EFor(t, func(work string) scripted.Script {
		tok := filepath.Join(work, "data", "server-token")
		return scripted.Script{Steps: []scripted.Step{
			scripted.ToolStep(
				scripted.CallID("cat1", "Bash", map[string]any{"command": "cat data/server-token"}),
				scripted.CallID("read1", "Read", map[string]any{"file_path": tok}),
				scripted.CallID("grep1", "Grep", map[string]any{"pattern": "e2e", "path": "data", "output_mode": "content"}),
			),
			scripted.TextStep("done"),
		}}
	})
	home := filepath.Join(x.Work, "data") // config and data in one folder
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "server-token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := x.RunStream("read the token", "--home", home, "--permission-mode", "explore")
	mustSucceed(t, r)
	res := toolResults(r)
	for _, id := range []string{"cat1", "read1"} {
		if !res[id].IsError {
			t.Errorf("%s was not refused: %+v", id, res[id])
		}
	}
	// Grep may search the folder (it is the workspace), but the token's
	// value is redacted wherever it turns up, checkpoint copies included.
	if out := res["grep1"].Output; !strings.Contains(out, "server-token") || !strings.Contains(out, "[REDACTED]") {
		t.Errorf("grep did not find the file, or did not redact it: %q", out)
	}
	// The checkpoint snapshots (copies of every workspace file) are not
	// searched at all.
	if out := res["grep1"].Output; strings.Contains(out, "checkpoints") {
		t.Errorf("grep searched the snapshot folder: %q", out)
	}
	if rg, err := exec.LookPath("rg"); err == nil {
		out, _ := runIn(x.Work, rg, "--no-config", "--hidden", "--no-require-git", "-l", "e2e-server-token")
		if strings.Contains(out, "checkpoints") || !strings.Contains(out, "server-token") {
			t.Errorf("ripgrep over the workspace: %q", out)
		}
	}
	if strings.Contains(r.Stdout, token) {
		t.Errorf("the token reached the stream:\n%s", r.Stdout)
	}
}
