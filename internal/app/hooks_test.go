package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
)

// adapterWith runs real shell hooks: each event's command is body.
func adapterWith(t *testing.T, events map[string]string) (hookAdapter, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := hooks.Config{}
	for ev, body := range events {
		p := filepath.Join(dir, ev+".sh")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg[ev] = []hooks.Matcher{{Hooks: []hooks.Handler{{Type: hooks.TypeCommand, Command: p}}}}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return newHookAdapter(hooks.NewRunner(cfg, dir, nil), func() string { return "normal" }, nil, nil), dir
}

// The adapter methods other parts call (compaction, sub-agents) carry
// Claude Code's meanings.
func TestHookAdapterCompactionAndSubagents(t *testing.T) {
	ctx := context.Background()
	h, dir := adapterWith(t, map[string]string{
		hooks.PreCompact:    `in=$(cat); case "$in" in *'"trigger":"auto"'*) echo 'not during the release' >&2; exit 2;; esac; exit 0`,
		hooks.PostCompact:   `cat > post.json`,
		hooks.SessionStart:  `in=$(cat); case "$in" in *'"source":"compact"'*) echo 'restored after compaction';; esac`,
		hooks.SubagentStart: `echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"use the test helpers"}}'`,
		hooks.SubagentStop:  `in=$(cat); case "$in" in *'"last_assistant_message":"half done"'*) echo '{"decision":"block","reason":"finish the other half"}';; esac`,
		hooks.Notification:  `cat > notified.json`,
	})
	if err := h.Notification(ctx, "s1", dir, hooks.NotifyIdlePrompt, "Waiting for input", "tandem is waiting for your input"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notified.json")); !strings.Contains(string(data), `"notification_type":"idle_prompt"`) {
		t.Errorf("idle notification input: %s", data)
	}
	if block, err := h.PreCompact(ctx, "s1", dir, "auto", ""); err != nil || block != "not during the release" {
		t.Errorf("PreCompact auto: %q %v", block, err)
	}
	if block, err := h.PreCompact(ctx, "s1", dir, "manual", "keep the API notes"); err != nil || block != "" {
		t.Errorf("PreCompact manual: %q %v", block, err)
	}
	if err := h.PostCompact(ctx, "s1", dir, "manual", "the summary"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "post.json"))
	var in map[string]any
	if json.Unmarshal(data, &in) != nil || in["compact_summary"] != "the summary" || in["trigger"] != "manual" || in["session_id"] != "s1" {
		t.Errorf("PostCompact input: %s", data)
	}
	// SessionStart(compact) ran after PostCompact; its context waits for the next prompt.
	if _, extra, _ := h.UserPromptSubmit(ctx, "s1", dir, "go on"); extra != "restored after compaction" {
		t.Errorf("context after compaction: %q", extra)
	}
	if c, err := h.SubagentStart(ctx, "s1", dir, "a1", "explore"); err != nil || c != "use the test helpers" {
		t.Errorf("SubagentStart: %q %v", c, err)
	}
	if r, err := h.SubagentStop(ctx, "s1", dir, "a1", "explore", "half done"); err != nil || r != "finish the other half" {
		t.Errorf("SubagentStop block: %q %v", r, err)
	}
	if r, _ := h.SubagentStop(ctx, "s1", dir, "a1", "explore", "all done"); r != "" {
		t.Errorf("SubagentStop without block: %q", r)
	}
}

// Under claude-code the CLI's hook input reaches the same hooks with
// tandem's session id, and the answer is Claude Code hook output.
func TestHookAdapterForward(t *testing.T) {
	ctx := context.Background()
	h, dir := adapterWith(t, map[string]string{
		hooks.SessionStart:     `echo 'frozen branch'`,
		hooks.UserPromptSubmit: `cat > prompt.json; echo 'style guide'`,
		hooks.Stop:             `echo 'tests fail' >&2; exit 2`,
	})
	var shown []event.Event
	h.emit = func(e event.Event) { shown = append(shown, e) }
	if err := h.SessionStart(ctx, "tandem-1", dir, hooks.SourceStartup, "m"); err != nil {
		t.Fatal(err)
	}
	evs := h.CLIEvents()
	if strings.Join(evs, ",") != "UserPromptSubmit,Stop" {
		t.Errorf("CLI events %v", evs)
	}
	out, err := h.Forward(ctx, "tandem-1", hooks.UserPromptSubmit, json.RawMessage(`{"session_id":"cli-9","hook_event_name":"UserPromptSubmit","cwd":"`+dir+`","prompt":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := out["hookSpecificOutput"].(map[string]any)
	if spec["additionalContext"] != "frozen branch\n\nstyle guide" {
		t.Errorf("UserPromptSubmit output %v", out)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "prompt.json"))
	if !strings.Contains(string(data), `"session_id":"tandem-1"`) || !strings.Contains(string(data), `"prompt":"hi"`) {
		t.Errorf("hook input %s", data)
	}
	out, _ = h.Forward(ctx, "tandem-1", hooks.Stop, json.RawMessage(`{"hook_event_name":"Stop"}`))
	if out["decision"] != "block" || out["reason"] != "tests fail" {
		t.Errorf("Stop output %v", out)
	}
}

// SessionEnd hooks get Claude Code's short budget, so closing a session
// never waits long for them.
func TestSessionEndBudget(t *testing.T) {
	h, dir := adapterWith(t, map[string]string{hooks.SessionEnd: "sleep 30"})
	h.endBudget = 200 * time.Millisecond
	start := time.Now()
	err := h.SessionEnd(context.Background(), "s1", dir, "other")
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("SessionEnd was not cut short: %v after %v", err, time.Since(start))
	}
	env := map[string]string{"CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS": "4000"}
	if a := newHookAdapter(nil, nil, nil, func(k string) string { return env[k] }); a.endBudget != 4*time.Second {
		t.Errorf("budget from the environment: %v", a.endBudget)
	}
}
