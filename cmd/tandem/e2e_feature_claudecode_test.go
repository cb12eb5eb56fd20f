package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// newClaudeCodeE2E is an e2e world whose user config points the
// claude-code runtime at the pinned CLI, isolated from the real ~/.claude.
func newClaudeCodeE2E(t *testing.T, build func(work string) scripted.Script, opts ...scripted.Option) *e2e {
	t.Helper()
	cli := testdepBin(t, "claude")
	x := newE2EFor(t, build, opts...)
	x.Env = append(x.Env,
		"CLAUDE_CONFIG_DIR="+filepath.Join(x.Home, ".claude"),
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDECODE=", // a test run from inside Claude Code must not trip its nested-launch check
	)
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{
		"claude_code": map[string]any{"path": cli, "first_byte_timeout": "30s", "turn_timeout": "90s"}})
	return x
}

// fixScript reads, fixes and tests calc.py (absolute paths: Claude Code's
// file tools require them), then a second turn answers.
func fixScript(work string) scripted.Script {
	calc := filepath.Join(work, "calc.py")
	return scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("read1", "Read", map[string]any{"file_path": calc})),
		scripted.ToolStep(scripted.CallID("edit1", "Edit", map[string]any{"file_path": calc, "old_string": "a - b", "new_string": "a + b"})).WithText("Found it."),
		scripted.ToolStep(scripted.CallID("bash1", "Bash", map[string]any{"command": "python3 test_calc.py"})),
		scripted.ThinkingStep("The test passes now.", "Fixed add()."),
		scripted.TextStep("Second turn answer."),
	}}
}

func writeCalc(x *e2e) {
	x.WriteFile("calc.py", "def add(a, b):\n    return a - b\n")
	x.WriteFile("test_calc.py", "from calc import add\nassert add(2, 3) == 5, add(2, 3)\nprint('calc ok')\n")
}

func TestFeatureClaudeCodeRuntime(t *testing.T) {
	t.Parallel()
	needProgram(t, "python3")
	cc := newClaudeCodeE2E(t, fixScript)
	writeCalc(cc)
	args := streamArgs("fix add in calc.py", "--runtime", "claude-code", "--allowedTools", "Bash(python3 test_calc.py)")
	r := cc.RunDetached(args...)
	mustSucceed(t, r)
	if got := cc.ReadFile("calc.py"); !strings.Contains(got, "a + b") {
		t.Fatalf("calc.py not fixed: %q", got)
	}
	types := r.Types()
	if types[0] != "status" || types[len(types)-1] != "done" || types[len(types)-2] != "result" {
		t.Errorf("event order: %v", types)
	}
	if r.Events[0].Runtime != "claude-code" {
		t.Errorf("status: %+v", r.Events[0])
	}
	results := toolResults(r)
	for _, id := range []string{"read1", "edit1", "bash1"} {
		if results[id].IsError || results[id].ToolUseID == "" {
			t.Errorf("%s: %+v", id, results[id])
		}
	}
	if !strings.Contains(results["bash1"].Output, "calc ok") {
		t.Errorf("bash result: %+v", results["bash1"])
	}
	if d := results["edit1"].Diff; !strings.Contains(d, "+    return a + b") {
		t.Errorf("edit diff: %q", d)
	}
	res := r.Result()
	if res.Result != "Fixed add()." || res.SessionID == "" {
		t.Errorf("result: %+v", res)
	}

	// Stored: the Claude Code session id in meta, the conversation in show.
	exp := cc.Run("sessions", "export", res.SessionID)
	var doc struct {
		Session struct {
			Runtime string            `json:"runtime"`
			Meta    map[string]string `json:"meta"`
		} `json:"session"`
	}
	if err := json.Unmarshal([]byte(exp.Stdout), &doc); err != nil {
		t.Fatalf("export: %v\n%s%s", err, exp.Stdout, exp.Stderr)
	}
	ccID := doc.Session.Meta[claudecode.MetaSessionID]
	if ccID == "" || doc.Session.Runtime != "claude-code" {
		t.Errorf("stored session: %+v", doc.Session)
	}
	show := cc.Run("sessions", "show", res.SessionID)
	for _, want := range []string{"fix add in calc.py", "→ Edit", "calc ok", "Fixed add()."} {
		if !strings.Contains(show.Stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, show.Stdout)
		}
	}

	// A second turn resumes the Claude Code conversation.
	r2 := cc.RunDetached("run", "--resume", res.SessionID, "-p", "and now?", "--output-format", "json")
	mustSucceed(t, r2)
	if r2.Result().Result != "Second turn answer." {
		t.Errorf("second turn: %+v", r2.Result())
	}
	if last := cc.lastRequestBody(); !strings.Contains(last, "fix add in calc.py") || !strings.Contains(last, "and now?") {
		t.Error("the resumed turn did not carry the first turn's conversation")
	}

	// The same task under the native runtime emits the same event shape.
	nat := newE2EFor(t, fixScript)
	writeCalc(nat)
	rn := nat.RunDetached(streamArgs("fix add in calc.py", "--runtime", "native", "--allowedTools", "Bash(python3 test_calc.py)")...)
	mustSucceed(t, rn)
	if got := nat.ReadFile("calc.py"); !strings.Contains(got, "a + b") {
		t.Fatalf("native: calc.py not fixed: %q", got)
	}
	if ok, diff := claudecode.CompareSequences(rn.Events, r.Events); !ok {
		t.Errorf("native vs claude-code event streams differ: %s", diff)
	}
}

// A write that tandem's engine denies (explore mode) does not happen under
// claude-code either.
func TestFeatureClaudeCodeExploreDeniesWrite(t *testing.T) {
	t.Parallel()
	x := newClaudeCodeE2E(t, func(work string) scripted.Script {
		return scripted.Script{Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": filepath.Join(work, "new.txt"), "content": "x"}),
				scripted.CallID("b1", "Bash", map[string]any{"command": "touch bashed.txt"})),
			scripted.TextStep("ok"),
		}}
	})
	target := filepath.Join(x.Work, "new.txt")
	r := x.RunDetached(streamArgs("write new.txt", "--runtime", "claude-code", "--permission-mode", "explore")...)
	mustSucceed(t, r)
	if fileExists(target) || fileExists(filepath.Join(x.Work, "bashed.txt")) {
		t.Fatal("a write denied by tandem's engine happened")
	}
	results := toolResults(r)
	for _, id := range []string{"w1", "b1"} {
		if !results[id].IsError {
			t.Errorf("%s: %+v", id, results[id])
		}
	}
	if r.Events[0].Type != event.Status || r.Events[0].Mode != "explore" {
		t.Errorf("status mode: %+v", r.Events[0])
	}
	if len(r.Result().PermissionDenials) != 2 {
		t.Errorf("permission_denials: %+v", r.Result().PermissionDenials)
	}
}

// An Anthropic-compatible server that reuses one message id for every
// reply: each session still stores its messages (under tandem's own ids,
// the provider's kept as data).
func TestFeatureClaudeCodeReusedProviderMessageIDs(t *testing.T) {
	t.Parallel()
	build := func(work string) scripted.Script {
		return scripted.Script{Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": filepath.Join(work, "a.txt")})),
			scripted.TextStep("done"),
		}}
	}
	cc := newClaudeCodeE2E(t, build, scripted.WithMessageID("msg_01SAMEIDEVERYTIME"))
	cc.WriteFile("a.txt", "hello\n")
	var ids []string
	for i := range 2 {
		r := cc.RunDetached(streamArgs("read a.txt", "--runtime", "claude-code")...)
		mustSucceed(t, r)
		exp, res := cc.Export(r.Result().SessionID)
		if res.Code != 0 {
			t.Fatalf("export %d: %s", i, res.Stderr)
		}
		for _, m := range exp.Messages {
			ids = append(ids, m.ID)
			if m.Role == "assistant" && m.ProviderID != "msg_01SAMEIDEVERYTIME" {
				t.Errorf("the provider's id is not kept: %+v", m)
			}
		}
		if len(exp.Messages) != 4 {
			t.Errorf("session %d stored %d messages, want 4", i, len(exp.Messages))
		}
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || strings.Contains(id, "SAMEID") {
			t.Errorf("stored id %q is not tandem's own and unique: %v", id, ids)
		}
		seen[id] = true
	}
}
