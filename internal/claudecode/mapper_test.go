package claudecode

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// loadFixture parses a recorded stream-json file from testdata (copied
// from real Claude Code 2.1.332 runs).
func loadFixture(t *testing.T, name string) []Msg {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []Msg
	for _, line := range bytes.Split(data, []byte("\n")) {
		m, ok, err := ParseLine(line)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

func types(evs []event.Event) string {
	s := make([]string, len(evs))
	for i, e := range evs {
		s[i] = string(e.Type)
	}
	return strings.Join(s, " ")
}

func TestEveryFixtureParses(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) < 5 {
		t.Fatalf("want the 5 recorded fixtures, found %d", len(files))
	}
	for _, f := range files {
		msgs := loadFixture(t, filepath.Base(f))
		if len(msgs) == 0 {
			t.Errorf("%s: no messages", f)
		}
		for _, m := range msgs {
			if m.Type == "" {
				t.Errorf("%s: message without type: %.100s", f, m.Raw)
			}
		}
	}
}

func TestMapFixbugPartial(t *testing.T) {
	var m Mapper
	m.Mode = "normal"
	var evs []event.Event
	for _, msg := range loadFixture(t, "fixbug-partial.jsonl") {
		evs = append(evs, m.Map(msg)...)
	}
	want := "status tool_use tool_result tool_use tool_result tool_use tool_result tool_use tool_result text result"
	if got := types(evs); got != want {
		t.Fatalf("types:\n got %s\nwant %s", got, want)
	}
	st := evs[0]
	if st.Runtime != "claude-code" || st.Model != "claude-sonnet-4-5" || st.Cwd != "/home/user/project" || st.Mode != "normal" || len(st.Tools) == 0 {
		t.Errorf("status = %+v", st)
	}
	if st.Meta["claude_session_id"] != "79e67e92-774c-4f12-8d78-6fe6e292de51" {
		t.Errorf("status meta = %v", st.Meta)
	}
	tu := evs[1]
	if tu.ToolName != "Bash" || tu.ToolUseID != "toolu_0000" || !strings.Contains(string(tu.Input), "find . -name") {
		t.Errorf("tool_use = %+v", tu)
	}
	tr := evs[2]
	if tr.ToolName != "Bash" || tr.Output != "./calc.py\n./test_calc.py" || tr.IsError {
		t.Errorf("tool_result = %+v", tr)
	}
	edit := evs[6]
	if edit.ToolName != "Edit" || !strings.Contains(edit.Diff, "-    return a - b\n+    return a + b") || edit.Meta["file_path"] != "/home/user/project/calc.py" {
		t.Errorf("edit result = %+v", edit)
	}
	// The final text came as a delta; the assistant line must not repeat it.
	var text string
	for _, e := range evs {
		if e.Type == event.Text {
			text += e.Text
		}
	}
	if text != "Fixed add()." {
		t.Errorf("text = %q", text)
	}
	res := evs[len(evs)-1]
	if res.Subtype != event.SubtypeSuccess || res.IsError || res.Result != "Fixed add()." || res.NumTurns != 5 {
		t.Errorf("result = %+v", res)
	}
	if res.Usage == nil || res.Usage.InputTokens != 6000 || res.Usage.OutputTokens != 100 {
		t.Errorf("usage = %+v", res.Usage)
	}
	if res.CostUSD == nil || *res.CostUSD != 0.0195 {
		t.Errorf("cost = %v", res.CostUSD)
	}

	// Stored conversation: 5 assistant messages (merged per message.id)
	// and 4 tool-result user messages, alternating.
	stored := m.TakeMessages()
	if len(stored) != 9 {
		t.Fatalf("stored %d messages, want 9", len(stored))
	}
	for i, sm := range stored {
		wantRole := message.Assistant
		if i%2 == 1 {
			wantRole = message.User
		}
		if sm.Role != wantRole {
			t.Errorf("message %d role %s, want %s", i, sm.Role, wantRole)
		}
	}
	if stored[0].ProviderID != "msg_0" || !strings.HasPrefix(stored[0].ID, "msg_") || len(stored[0].ToolUses()) != 1 || stored[0].Usage == nil || stored[0].Usage.OutputTokens != 20 {
		t.Errorf("first assistant message = %+v usage %+v", stored[0], stored[0].Usage)
	}
	if stored[1].Content[0].Type != message.ToolResult || stored[1].Content[0].ToolUseID != "toolu_0000" {
		t.Errorf("tool result message = %+v", stored[1])
	}
	last := stored[8]
	if last.PlainText() != "Fixed add()." || last.CostUSD == nil || *last.CostUSD != 0.0195 {
		t.Errorf("last message = %+v", last)
	}
}

func TestMapMergesSplitAssistantLines(t *testing.T) {
	lines := []string{
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"thinking","thinking":"hmm","signature":"sig"}],"usage":{"input_tokens":5,"output_tokens":1}},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"text","text":"Let me look."}],"usage":{"input_tokens":5,"output_tokens":1}},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}],"usage":{"input_tokens":5,"output_tokens":1}},"parent_tool_use_id":null}`,
		`{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"body"}]}]},"parent_tool_use_id":null}`,
	}
	m := Mapper{Provider: "anthropic"}
	var evs []event.Event
	for _, l := range lines {
		msg, _, err := ParseLine([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, m.Map(msg)...)
	}
	if got := types(evs); got != "thinking text tool_use tool_result" {
		t.Fatalf("types %s", got)
	}
	if evs[0].Signature != "sig" || evs[3].Output != "body" || evs[3].ToolName != "Read" {
		t.Errorf("events %+v", evs)
	}
	stored := m.TakeMessages()
	if len(stored) != 2 || len(stored[0].Content) != 3 {
		t.Fatalf("stored %+v", stored)
	}
	if b := stored[0].Content[0]; b.Type != message.Thinking || b.Signature != "sig" || b.Provider != "anthropic" {
		t.Errorf("thinking block %+v", b)
	}
}

func TestMapPartialThinkingNotRepeated(t *testing.T) {
	lines := []string{
		`{"type":"stream_event","api_message_id":"m1","event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a"}}}`,
		`{"type":"stream_event","api_message_id":"m1","event":{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"a","signature":"s"}]}}`,
		`{"type":"stream_event","api_message_id":"m1","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"hi"}}}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}`,
	}
	var msgs []Msg
	for _, l := range lines {
		msg, _, _ := ParseLine([]byte(l))
		msgs = append(msgs, msg)
	}
	if got := types(MapAll(msgs)); got != "thinking thinking text" {
		t.Errorf("types %s", got)
	}
}

func TestMapPermissionDenied(t *testing.T) {
	evs := MapAll(loadFixture(t, "permission-denied.jsonl"))
	if got := types(evs); got != "status tool_use tool_result text result" {
		t.Fatalf("types %s", got)
	}
	if !evs[2].IsError || evs[2].ToolName != "Write" {
		t.Errorf("tool_result %+v", evs[2])
	}
	res := evs[4]
	if len(res.PermissionDenials) != 1 {
		t.Fatalf("denials %+v", res.PermissionDenials)
	}
	d := res.PermissionDenials[0]
	if d.ToolName != "Write" || d.ToolUseID != "toolu_0000" || !strings.Contains(d.Reason, "haven't granted") || !strings.Contains(string(d.ToolInput), "new.txt") {
		t.Errorf("denial %+v", d)
	}
}

func TestMapResumeSecondTurnCost(t *testing.T) {
	evs := MapAll(loadFixture(t, "resume-second-turn.jsonl"))
	if got := types(evs); got != "status text result" {
		t.Fatalf("types %s", got)
	}
	// total_cost_usd is cumulative over the resumed session; the turn's own
	// cost comes from model_usage_since_last_result.
	res := evs[2]
	if res.CostUSD == nil || *res.CostUSD != 0.0048000000000000004 {
		t.Errorf("turn cost = %v, want 0.0048", res.CostUSD)
	}
}

func TestMapResumeMissingSession(t *testing.T) {
	msgs := loadFixture(t, "resume-missing-session.jsonl")
	if len(msgs) != 1 || !isMissingSession(msgs[0]) {
		t.Fatalf("missing-session result not recognised: %+v", msgs)
	}
	evs := MapAll(msgs)
	if evs[0].Subtype != event.SubtypeError || !strings.Contains(evs[0].Error, "No conversation found") {
		t.Errorf("result %+v", evs[0])
	}
	stderr, _ := os.ReadFile("testdata/resume-missing-session.stderr.txt")
	if !strings.Contains(string(stderr), missingSessionRe) {
		t.Errorf("stderr fixture does not contain %q", missingSessionRe)
	}
}

func TestMapAuthRetry(t *testing.T) {
	evs := MapAll(loadFixture(t, "auth-401-retrying.jsonl"))
	if got := types(evs); got != "status retry retry retry retry retry retry" {
		t.Fatalf("types %s", got)
	}
	r := evs[1]
	if r.HTTPStatus != 401 || r.Attempt != 1 || r.DelayMS != 533 || r.Error != "authentication_failed" {
		t.Errorf("retry %+v", r)
	}
}

func TestResultSubtypes(t *testing.T) {
	four01 := 401
	cases := []struct {
		name string
		msg  Msg
		want string
	}{
		{"success", Msg{Subtype: "success"}, event.SubtypeSuccess},
		{"api error", Msg{Subtype: "success", IsError: true, APIErrorStatus: &four01}, event.SubtypeProviderError},
		{"max turns", Msg{Subtype: "error_max_turns", IsError: true}, event.SubtypeMaxTurns},
		{"execution", Msg{Subtype: "error_during_execution", IsError: true}, event.SubtypeError},
		{"interrupt", Msg{Subtype: "error_during_execution", TerminalReason: "aborted_tools"}, event.SubtypeInterrupted},
		{"budget", Msg{Subtype: "error_max_budget_usd"}, event.SubtypeMaxBudget},
	}
	for _, c := range cases {
		if got := resultSubtype(c.msg); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestUnknownMessagesIgnored(t *testing.T) {
	for _, l := range []string{
		`{"type":"brand_new_thing","x":1}`,
		`{"type":"system","subtype":"hook_started"}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}`,
		`{"type":"stream_event","event":{"type":"ping"}}`,
	} {
		msg, ok, err := ParseLine([]byte(l))
		if !ok || err != nil {
			t.Fatalf("%s: ok=%v err=%v", l, ok, err)
		}
		if evs := MapAll([]Msg{msg}); len(evs) != 0 {
			t.Errorf("%s mapped to %+v", l, evs)
		}
	}
	if _, ok, err := ParseLine([]byte("[SandboxDebug] hello")); ok || err != nil {
		t.Errorf("non-JSON line: ok=%v err=%v", ok, err)
	}
	if _, _, err := ParseLine([]byte("{broken")); err == nil {
		t.Error("broken JSON line: no error")
	}
}

func TestCompactBoundaryEvent(t *testing.T) {
	msg, _, _ := ParseLine([]byte(`{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"manual","pre_tokens":1234,"post_tokens":210}}`))
	evs := MapAll([]Msg{msg})
	if len(evs) != 1 || evs[0].Type != event.CompactBoundary || evs[0].Trigger != "manual" || evs[0].TokensBefore != 1234 || evs[0].TokensAfter != 210 {
		t.Errorf("%+v", evs)
	}
}

func TestTypeSequence(t *testing.T) {
	evs := []event.Event{{Type: event.Status}, {Type: event.Thinking}, {Type: event.Thinking}, {Type: event.Text}, {Type: event.Text},
		{Type: event.ToolUse}, {Type: event.ToolOutput}, {Type: event.ToolOutput}, {Type: event.ToolResult}, {Type: event.Text}, {Type: event.Result}}
	want := []event.Type{event.Status, event.Thinking, event.Text, event.ToolUse, event.ToolResult, event.Text, event.Result}
	if got := TypeSequence(evs); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
	if ok, _ := CompareSequences(evs, evs[:len(evs)-1]); ok {
		t.Error("different sequences compared equal")
	}
	if ok, diff := CompareSequences(evs, append([]event.Event{}, evs...)); !ok {
		t.Error(diff)
	}
}

// The CLI runs a tool while the API message that asked for it is still
// streaming, so one message.id can come back around a tool result. Each
// part is stored, under distinct ids, in the order the lines came.
func TestSplitMessageAroundToolResultGetsDistinctIDs(t *testing.T) {
	lines := []string{
		`{"type":"assistant","message":{"id":"msg_A","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"one"}]}}`,
		`{"type":"assistant","message":{"id":"msg_A","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"b"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"two"}]}}`,
	}
	var m Mapper
	for _, l := range lines {
		msg, ok, err := ParseLine([]byte(l))
		if err != nil || !ok {
			t.Fatal(l, err)
		}
		m.Map(msg)
	}
	m.Flush()
	stored := m.TakeMessages()
	if len(stored) != 4 {
		t.Fatalf("stored %d messages: %+v", len(stored), stored)
	}
	if stored[0].ID == stored[2].ID || stored[0].ProviderID != "msg_A" || stored[2].ProviderID != "msg_A" {
		t.Errorf("ids %q and %q (provider %q, %q)", stored[0].ID, stored[2].ID, stored[0].ProviderID, stored[2].ProviderID)
	}
	if stored[2].ToolUses()[0].ID != "t2" {
		t.Errorf("second part %+v", stored[2])
	}
}
