package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/provider"
)

// updatedToolOutput in its three shapes becomes the text the model reads.
func TestToolOutputText(t *testing.T) {
	for raw, want := range map[string]string{`"clean"`: "clean", `{"output":"kept"}`: "kept", `{"n":1}`: `{"n":1}`, `[1,2]`: `[1,2]`} {
		if got := toolOutputText(json.RawMessage(raw)); got == nil || *got != want {
			t.Errorf("%s: %v, want %q", raw, got, want)
		}
	}
	if toolOutputText(nil) != nil || toolOutputText(json.RawMessage("null")) != nil {
		t.Error("no updatedToolOutput must keep the result")
	}
}

// A failed model call is named as Claude Code's StopFailure names it.
func TestFailureKind(t *testing.T) {
	cases := map[error]string{
		&provider.Error{Status: 401, Auth: true}: hooks.FailAuthentication,
		&provider.Error{Status: 429}:             hooks.FailRateLimit,
		&provider.Error{Status: 529}:             hooks.FailOverloaded,
		&provider.Error{Status: 400}:             hooks.FailInvalidRequest,
		&provider.Error{Status: 404}:             hooks.FailModelNotFound,
		&provider.Error{Status: 503}:             hooks.FailServer,
		errors.New("connection reset"):           hooks.FailUnknown,
	}
	for err, want := range cases {
		if got := failureKind(err); got != want {
			t.Errorf("%v: %s, want %s", err, got, want)
		}
	}
}

// An async hook's additionalContext reaches the model with the next
// prompt, and its systemMessage the user, once it has ended.
func TestAsyncHookContextWaitsForNextPrompt(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "async.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '{\"systemMessage\":\"lint ran\",\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"ASYNC-CONTEXT: 2 lint warnings\"}}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := hooks.Config{hooks.PostToolUse: {{Hooks: []hooks.Handler{{Type: hooks.TypeCommand, Command: p, Async: true}}}}}
	shown := make(chan string, 1)
	h := newHookAdapter(hooks.NewRunner(cfg, dir, nil), func() string { return "normal" }, func(e event.Event) {
		if e.Type == event.Status {
			shown <- e.Message
		}
	}, nil)
	fb, replace, err := h.PostToolUse(context.Background(), "s1", dir, "Bash", "t1", []byte(`{}`), "ok")
	if fb != "" || replace != nil || err != nil {
		t.Fatalf("an async hook answered synchronously: %q %v %v", fb, replace, err)
	}
	select {
	case msg := <-shown:
		if msg != "PostToolUse hook: lint ran" {
			t.Errorf("systemMessage shown as %q", msg)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the async hook's systemMessage never came")
	}
	// The sink stored the context before it showed the message.
	if _, extra, _ := h.UserPromptSubmit(context.Background(), "s1", dir, "next"); extra != "ASYNC-CONTEXT: 2 lint warnings" {
		t.Errorf("next prompt's context %q", extra)
	}
}

// PreModelSwitch gets from/to and can refuse the switch; PostModelSwitch's
// context waits for the next prompt.
func TestModelSwitchHooks(t *testing.T) {
	ctx := context.Background()
	h, dir := adapterWith(t, map[string]string{
		hooks.PreModelSwitch:  `cat > pre.json; echo '{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"deny","permissionDecisionReason":"stay on the reviewed model"}}'`,
		hooks.PostModelSwitch: `echo '{"hookSpecificOutput":{"hookEventName":"PostModelSwitch","additionalContext":"SWITCHED"}}'`,
	})
	err := h.PreModelSwitch(ctx, "s1", dir, "anthropic/a", "openai/b")
	if err == nil || !strings.Contains(err.Error(), "stay on the reviewed model") {
		t.Errorf("PreModelSwitch deny: %v", err)
	}
	in, _ := os.ReadFile(filepath.Join(dir, "pre.json"))
	for _, want := range []string{`"hook_event_name":"PreModelSwitch"`, `"from_model":"anthropic/a"`, `"to_model":"openai/b"`, `"requested_model":"openai/b"`, `"source":"command"`} {
		if !strings.Contains(string(in), want) {
			t.Errorf("PreModelSwitch input lacks %s: %s", want, in)
		}
	}
	if err := h.PostModelSwitch(ctx, "s1", dir, "anthropic/a", "openai/b"); err != nil {
		t.Fatal(err)
	}
	if _, extra, _ := h.UserPromptSubmit(ctx, "s1", dir, "next"); extra != "SWITCHED" {
		t.Errorf("next prompt's context %q", extra)
	}
}
