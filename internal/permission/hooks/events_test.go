package hooks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func cmd(c string) []Handler { return []Handler{{Type: TypeCommand, Command: c}} }

// Every event's matcher selects on the field Claude Code uses, and every
// event's input reaches the hook with Claude Code's field names.
func TestEventMatchersAndInputs(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	rec := script(t, dir, "rec.sh", `cat >> `+log+`; echo >> `+log)
	cases := []struct {
		in      Input
		matcher string
		field   string
	}{
		{Input{HookEventName: SessionStart, Source: SourceResume, Model: "m"}, "resume", `"source":"resume"`},
		{Input{HookEventName: SessionEnd, Reason: "prompt_input_exit"}, "prompt_input_exit|other", `"reason":"prompt_input_exit"`},
		{Input{HookEventName: Notification, NotificationType: NotifyIdlePrompt, Message: "waiting"}, "idle_prompt", `"notification_type":"idle_prompt"`},
		{Input{HookEventName: SubagentStart, AgentID: "a1", AgentType: "explore"}, "explore", `"agent_id":"a1"`},
		{Input{HookEventName: SubagentStop, AgentID: "a1", AgentType: "explore", LastAssistantMessage: "done"}, "expl.*", `"last_assistant_message":"done"`},
		{Input{HookEventName: PreCompact, Trigger: "auto", CustomInstructions: "keep tests"}, "auto", `"custom_instructions":"keep tests"`},
		{Input{HookEventName: PostCompact, Trigger: "manual", CompactSummary: "sum"}, "manual", `"compact_summary":"sum"`},
		{Input{HookEventName: PostToolUseFailure, ToolName: "Bash", Error: "exit 1"}, "Bash", `"error":"exit 1"`},
		{Input{HookEventName: PermissionRequest, ToolName: "Write", ToolInput: json.RawMessage(`{}`)}, "Write|Edit", `"tool_name":"Write"`},
	}
	for _, c := range cases {
		os.Remove(log)
		cfg := Config{c.in.HookEventName: {
			{Matcher: "no-such-value", Hooks: cmd(rec + " miss")},
			{Matcher: c.matcher, Hooks: cmd(rec)},
		}}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		out, err := NewRunner(cfg, dir, nil).Run(context.Background(), c.in)
		if err != nil || len(out.Errors) > 0 {
			t.Fatalf("%s: %v %+v", c.in.HookEventName, err, out)
		}
		data, _ := os.ReadFile(log)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], c.field) || !strings.Contains(lines[0], `"hook_event_name":"`+c.in.HookEventName+`"`) {
			t.Errorf("%s: hook saw %q, want one input with %s", c.in.HookEventName, data, c.field)
		}
	}
}

func TestEventOutputs(t *testing.T) {
	dir := t.TempDir()
	run := func(event, body string, in Input) Outcome {
		t.Helper()
		in.HookEventName = event
		out, err := NewRunner(Config{event: {{Hooks: cmd(script(t, dir, "h.sh", body))}}}, dir, nil).Run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// SessionStart: plain stdout and additionalContext reach the model; exit 2 cannot block.
	if o := run(SessionStart, "echo 'branch main is frozen'", Input{Source: SourceStartup}); o.AdditionalContext != "branch main is frozen" {
		t.Errorf("SessionStart stdout: %+v", o)
	}
	if o := run(SessionStart, `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}'`, Input{}); o.AdditionalContext != "ctx" {
		t.Errorf("SessionStart JSON: %+v", o)
	}
	if o := run(SessionStart, "echo no >&2; exit 2", Input{}); o.Decision != DecisionNone || len(o.Errors) != 1 {
		t.Errorf("SessionStart exit 2 must not block: %+v", o)
	}
	// PreCompact: exit 2 blocks compaction.
	if o := run(PreCompact, "echo 'not now' >&2; exit 2", Input{Trigger: "manual"}); o.Decision != DecisionDeny || o.Reason != "not now" {
		t.Errorf("PreCompact exit 2: %+v", o)
	}
	// PermissionRequest: hookSpecificOutput.decision answers the ask.
	o := run(PermissionRequest, `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls -l"}}}}'`, Input{ToolName: "Bash"})
	if o.Decision != DecisionAllow || string(o.UpdatedInput) != `{"command":"ls -l"}` {
		t.Errorf("PermissionRequest allow: %+v", o)
	}
	o = run(PermissionRequest, `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no deploys","interrupt":true}}}'`, Input{ToolName: "Bash"})
	if o.Decision != DecisionDeny || o.Reason != "no deploys" || !o.Interrupt {
		t.Errorf("PermissionRequest deny: %+v", o)
	}
	// SubagentStop: block keeps the sub-agent going.
	if o := run(SubagentStop, `echo '{"decision":"block","reason":"run the tests too"}'`, Input{}); o.Decision != DecisionDeny || o.Reason != "run the tests too" {
		t.Errorf("SubagentStop block: %+v", o)
	}
	// continue:false, systemMessage and suppressOutput come through.
	o = run(PostToolUse, `echo '{"continue":false,"stopReason":"budget","systemMessage":"hi user","suppressOutput":true}'`, Input{ToolName: "Read"})
	if !o.Stop || o.StopReason != "budget" || o.SystemMessage != "hi user" || !o.SuppressOutput {
		t.Errorf("common fields: %+v", o)
	}
}

// Matching hooks run at the same time, and a command listed twice runs once.
func TestParallelAndDedupe(t *testing.T) {
	dir := t.TempDir()
	// Each waits for the other's mark: run one after the other, both fail.
	wait := func(me, other string) string {
		return script(t, dir, me+".sh", `touch `+me+`; i=0; while [ $i -lt 100 ]; do [ -e `+other+` ] && exit 0; sleep 0.1; i=$((i+1)); done; echo "never saw `+other+`" >&2; exit 1`)
	}
	a, b := wait("a", "b"), wait("b", "a")
	count := script(t, dir, "count.sh", "echo x >> count")
	cfg := Config{Stop: {{Hooks: cmd(a)}, {Hooks: append(cmd(b), Handler{Type: TypeCommand, Command: count})}, {Hooks: cmd(count)}}}
	out, err := NewRunner(cfg, dir, nil).Stop(context.Background(), Input{})
	if err != nil || len(out.Errors) > 0 {
		t.Fatalf("hooks did not run in parallel: %v %+v", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "count")); string(data) != "x\n" {
		t.Errorf("identical command ran %q, want once", data)
	}
}

func TestHTTPHooks(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	var bodies []string
	answer := map[string]func(http.ResponseWriter){
		"/deny": func(w http.ResponseWriter) {
			io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}`)
		},
		"/empty":   func(w http.ResponseWriter) {},
		"/fail":    func(w http.ResponseWriter) { w.WriteHeader(500); io.WriteString(w, "boom") },
		"/notjson": func(w http.ResponseWriter) { io.WriteString(w, "hello") },
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, string(b))
		mu.Unlock()
		answer[r.URL.Path](w)
	}))
	defer srv.Close()
	env := []string{"TEAM_TOKEN=secret1", "OTHER_SECRET=secret2"}
	h := func(path string) Handler {
		return Handler{Type: TypeHTTP, URL: srv.URL + path, AllowedEnvVars: []string{"TEAM_TOKEN"},
			Headers: map[string]string{"Authorization": "Bearer $TEAM_TOKEN", "X-Other": "${OTHER_SECRET}x"}}
	}
	cfg := Config{PreToolUse: {{Matcher: "Bash", Hooks: []Handler{h("/deny"), h("/empty")}}}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(cfg, t.TempDir(), env)
	out, err := r.PreToolUse(context.Background(), Input{SessionID: "s1", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)})
	if err != nil || out.Decision != DecisionDeny || out.Reason != "policy says no" || len(out.Errors) != 0 {
		t.Fatalf("http deny: %v %+v", err, out)
	}
	if len(got) != 2 || got[0].Method != http.MethodPost || got[0].Header.Get("Content-Type") != "application/json" {
		t.Fatalf("requests: %d", len(got))
	}
	for i, req := range got {
		if req.Header.Get("Authorization") != "Bearer secret1" || req.Header.Get("X-Other") != "x" {
			t.Errorf("headers: %v (only allowed variables expand)", req.Header)
		}
		var in map[string]any
		if json.Unmarshal([]byte(bodies[i]), &in) != nil || in["tool_name"] != "Bash" || in["hook_event_name"] != "PreToolUse" {
			t.Errorf("body: %s", bodies[i])
		}
	}
	// A failing or non-JSON answer is a non-blocking error.
	r = NewRunner(Config{PreToolUse: {{Hooks: []Handler{h("/fail"), h("/notjson")}}}}, t.TempDir(), env)
	out, _ = r.PreToolUse(context.Background(), Input{ToolName: "Bash"})
	if out.Decision != DecisionNone || len(out.Errors) != 2 {
		t.Errorf("http errors: %+v", out)
	}
	if err := (Config{Stop: {{Hooks: []Handler{{Type: TypeHTTP, URL: "file:///x"}}}}}).Validate(); err == nil {
		t.Error("a non-http URL must fail validation")
	}
}
