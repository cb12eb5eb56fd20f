package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// hookWorld writes a .claude/settings.json whose hooks log every event
// they see (one line each) and a SessionStart hook whose stdout is context
// for the model.
func hookWorld(t *testing.T, x *e2e) string {
	t.Helper()
	log := filepath.Join(x.Work, "hooks.log")
	x.WriteFile(".claude/hooks/log.sh", "#!/bin/sh\nin=$(cat)\nev=$(printf '%s' \"$in\" | sed -n 's/.*\"hook_event_name\":\"\\([A-Za-z]*\\)\".*/\\1/p')\nsrc=$(printf '%s' \"$in\" | sed -n 's/.*\"source\":\"\\([a-z]*\\)\".*/\\1/p')\necho \"$ev $src\" >> "+log+"\nif [ \"$ev\" = SessionStart ]; then echo 'SESSION-CONTEXT: the deploy branch is frozen'; fi\nexit 0\n")
	logHook := []any{map[string]any{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/.claude/hooks/log.sh\""}}
	events := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"} {
		events[ev] = []any{map[string]any{"hooks": logHook}}
	}
	writeJSONFile(t, filepath.Join(x.Work, ".claude", "settings.json"), map[string]any{"hooks": events})
	return log
}

func hookLines(x *e2e, log string) []string {
	data := x.ReadFile(strings.TrimPrefix(log, x.Work+"/"))
	lines := strings.Split(strings.TrimSpace(data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// Every hook runs exactly once per event under both runtimes (under
// claude-code tandem runs them; the CLI runs none from settings files),
// and SessionStart's output reaches the model.
func TestFeatureHooksLifecycle(t *testing.T) {
	t.Parallel()
	for _, runtime := range []string{"native", "claude-code"} {
		t.Run(runtime, func(t *testing.T) {
			build := func(work string) scripted.Script {
				return scripted.Script{Steps: []scripted.Step{
					scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": filepath.Join(work, "a.txt")})),
					scripted.ToolStep(scripted.CallID("r2", "Read", map[string]any{"file_path": filepath.Join(work, "missing.txt")})),
					scripted.TextStep("done"),
				}}
			}
			var x *e2e
			if runtime == "claude-code" {
				x = newClaudeCodeE2E(t, build)
			} else {
				x = newE2EFor(t, build)
			}
			x.WriteFile("a.txt", "hello\n")
			// A loaded test machine may need more than SessionEnd's default 1.5 s.
			x.Env = append(x.Env, "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=30000")
			log := hookWorld(t, x)
			r := x.RunDetached(streamArgs("read a.txt", "--runtime", runtime, "--trust-project")...)
			mustSucceed(t, r)
			got := hookLines(x, log)
			want := []string{"SessionStart startup", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUseFailure", "Stop", "SessionEnd"}
			if !slices.Equal(got, want) {
				t.Errorf("hooks ran:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if !strings.Contains(x.lastRequestBody(), "SESSION-CONTEXT: the deploy branch is frozen") {
				t.Error("SessionStart context never reached the model")
			}
		})
	}
}

// Hooks in tandem's own config (permissions.hooks) run too, and an http
// hook answers like a command.
func TestFeatureHooksFromTandemConfig(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("X-Team"))
		io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"HTTP-CONTEXT: use the staging database"}}`)
	}))
	defer srv.Close()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	x.Env = append(x.Env, "TEAM_NAME=blue")
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{"permissions": map[string]any{"hooks": map[string]any{
		"UserPromptSubmit": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": "echo 'CMD-CONTEXT: tabs not spaces'"},
			map[string]any{"type": "http", "url": srv.URL, "headers": map[string]any{"X-Team": "$TEAM_NAME"}, "allowedEnvVars": []any{"TEAM_NAME"}},
		}}}}}})
	mustSucceed(t, x.RunDetached(streamArgs("hi")...))
	body := x.lastRequestBody()
	if !strings.Contains(body, "CMD-CONTEXT: tabs not spaces") || !strings.Contains(body, "HTTP-CONTEXT: use the staging database") {
		t.Errorf("hook context missing from the request: %s", body)
	}
	if got.Load() != "blue" {
		t.Errorf("X-Team header %v", got.Load())
	}
}

// A PreToolUse hook answering "continue": false denies the call and ends
// the turn under both runtimes: the model is not called again.
func TestFeatureHooksContinueFalse(t *testing.T) {
	t.Parallel()
	for _, runtime := range []string{"native", "claude-code"} {
		t.Run(runtime, func(t *testing.T) {
			build := func(work string) scripted.Script {
				return scripted.Script{Steps: []scripted.Step{
					scripted.ToolStep(scripted.CallID("w1", "Bash", map[string]any{"command": "touch made.txt"})),
					scripted.TextStep("should not be reached"),
				}}
			}
			var x *e2e
			if runtime == "claude-code" {
				x = newClaudeCodeE2E(t, build)
			} else {
				x = newE2EFor(t, build)
			}
			writeJSONFile(t, filepath.Join(x.Work, ".claude", "settings.json"), map[string]any{"hooks": map[string]any{
				"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command",
					"command": `echo '{"continue":false,"stopReason":"budget spent"}'`}}}}}})
			r := x.RunDetached(streamArgs("make a file", "--runtime", runtime, "--permission-mode", "trust", "--trust-project")...)
			if fileExists(filepath.Join(x.Work, "made.txt")) {
				t.Error("the call ran")
			}
			if n := len(x.srv.MainRequests()); n != 1 {
				t.Errorf("the model was called %d times, want 1 (types %v)", n, r.Types())
			}
		})
	}
}

// Compaction fires PreCompact (which may block it) and PostCompact with
// the summary, with Claude Code's fields.
func TestFeatureHooksCompaction(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	x.restart(t, scripted.Script{Steps: readScript(x, 3), StepMarkers: true, Fallback: &scripted.Step{Text: e2eSummary}})
	pre, post := filepath.Join(x.Home, "pre.json"), filepath.Join(x.Home, "post.json")
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{"permissions": map[string]any{"hooks": map[string]any{
		"PreCompact":  []any{map[string]any{"matcher": "manual", "hooks": []any{map[string]any{"type": "command", "command": "cat > " + pre}}}},
		"PostCompact": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat > " + post}}}},
	}}})
	res := x.RunStream("read three files", "--permission-mode", "trust")
	mustSucceed(t, res)
	id := res.Result().SessionID
	if out := x.Run("sessions", "compact", id, "--focus", "the file names"); out.Code != 0 {
		t.Fatalf("sessions compact: exit %d\n%s%s", out.Code, out.Stdout, out.Stderr)
	}
	preIn, _ := os.ReadFile(pre)
	if !strings.Contains(string(preIn), `"trigger":"manual"`) || !strings.Contains(string(preIn), `"custom_instructions":"the file names"`) {
		t.Errorf("PreCompact input: %s", preIn)
	}
	postIn, _ := os.ReadFile(post)
	if !strings.Contains(string(postIn), `"hook_event_name":"PostCompact"`) || !strings.Contains(string(postIn), `"compact_summary":"`) {
		t.Errorf("PostCompact input: %s", postIn)
	}

	// A blocking PreCompact hook stops it.
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{"permissions": map[string]any{"hooks": map[string]any{
		"PreCompact": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo 'not now' >&2; exit 2"}}}},
	}}})
	if out := x.Run("sessions", "compact", id); out.Code == 0 || !strings.Contains(out.Stdout+out.Stderr, "not now") {
		t.Errorf("blocked compaction: exit %d\n%s%s", out.Code, out.Stdout, out.Stderr)
	}
}
