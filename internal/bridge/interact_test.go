package bridge

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// toolResults are the texts of the tool results stored in the chat's
// session, in order.
func (e *env) toolResults() []string {
	e.t.Helper()
	var out []string
	for _, m := range e.messages() {
		for _, b := range m.Content {
			if b.Type != message.ToolResult {
				continue
			}
			var sb strings.Builder
			for _, c := range b.Content {
				sb.WriteString(c.Text)
			}
			out = append(out, sb.String())
		}
	}
	return out
}

// press presses the button labelled label of the newest message showing
// text.
func (e *env) press(text, label string) {
	e.t.Helper()
	f := e.fake
	f.waitFor(e.t, "buttons under "+text, func() bool { _, bs := f.buttonsOf(text); return len(bs) > 0 })
	msgID, bs := f.buttonsOf(text)
	for _, b := range bs {
		if b.Label == label {
			e.n++
			f.updates <- Update{ID: "press" + b.Data + string(rune('a'+e.n)), Chat: Chat{ID: "c1"}, User: "alice", UserName: "alice",
				Press: &Press{ID: "q", Data: b.Data, MessageID: msgID}}
			return
		}
	}
	e.t.Fatalf("no button %q under %q: %+v", label, text, bs)
}

// A plan reaches the chat with its choices; typed text keeps planning with
// that feedback; approving with "accept edits" leaves explore mode.
func TestPlanApprovalFromTheChat(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("ExitPlanMode", map[string]any{"plan": "1. Add the store."})),
		scripted.ToolStep(scripted.Call("ExitPlanMode", map[string]any{"plan": "1. Add the store.\n2. Migrate the data."})),
		scripted.TextStep("Working on it."),
	}}
	e := newEnv(t, script, nil)
	f := e.fake
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session") })
	e.send("alice", "/mode explore")
	f.waitFor(t, "the mode", func() bool { return f.has("Mode: explore") })
	e.send("alice", "plan the storage change")
	f.waitFor(t, "the plan", func() bool { _, bs := f.buttonsOf("Plan to approve"); return len(bs) == 3 })
	if _, bs := f.buttonsOf("Plan to approve"); bs[0].Label != "Approve" || bs[1].Label != "Approve, accept edits" || bs[2].Label != "Keep planning" {
		t.Fatalf("plan buttons = %+v", bs)
	}
	if strings.Contains(f.transcript(), "Allow once") {
		t.Errorf("the plan was asked as a tool permission:\n%s", f.transcript())
	}
	// Typed text while the plan waits is the feedback, not a new prompt.
	e.send("alice", "add a migration step")
	f.waitFor(t, "the revised plan", func() bool { return f.has("Migrate the data") && f.has("↩ Keep planning") })
	e.press("Migrate the data", "Approve, accept edits")
	f.waitFor(t, "the work", func() bool { return f.has("Working on it.") })
	f.waitFor(t, "the plan marked", func() bool { return f.has("Approved: working in acceptEdits mode") })
	e.idle()
	if !f.has("mode acceptEdits") {
		t.Errorf("the session did not leave explore mode:\n%s", f.transcript())
	}
	if p := e.prompts(); len(p) != 1 {
		t.Errorf("prompts run: %q, want one (the feedback is no prompt)", p)
	}
	res := e.toolResults()
	if len(res) != 2 || !strings.Contains(res[0], "add a migration step") {
		t.Errorf("the feedback did not reach the model: %q", res)
	}
}

// Questions one after the other: a single choice by button, a
// multi-select by toggles and Done, and a typed answer; all reach the
// model; a press on a finished question is stale.
func TestQuestionsAnsweredFromTheChat(t *testing.T) {
	opts := func(labels ...string) []any {
		var out []any
		for _, l := range labels {
			out = append(out, map[string]any{"label": l, "description": "about " + l})
		}
		return out
	}
	qs := map[string]any{"questions": []any{
		map[string]any{"question": "Which database?", "header": "DB", "options": opts("SQLite", "PostgreSQL")},
		map[string]any{"question": "Which platforms?", "header": "Chat", "multiSelect": true, "options": opts("Slack", "Discord", "Telegram")},
		map[string]any{"question": "What name?", "header": "Name", "options": opts("tandem", "duo")},
	}}
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("AskUserQuestion", qs)),
		scripted.TextStep("Thanks."),
	}}
	e := newEnv(t, script, nil)
	f := e.fake
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session") })
	e.send("alice", "ask me")
	e.press("Which database?", "PostgreSQL")
	e.press("Which platforms?", "☐ Slack")
	f.waitFor(t, "the toggle", func() bool {
		_, bs := f.buttonsOf("Which platforms?")
		return len(bs) > 0 && bs[0].Label == "☑ Slack"
	})
	e.press("Which platforms?", "☐ Telegram")
	f.waitFor(t, "the toggle", func() bool {
		_, bs := f.buttonsOf("Which platforms?")
		return len(bs) > 2 && bs[2].Label == "☑ Telegram"
	})
	e.press("Which platforms?", "Done")
	f.waitFor(t, "the third question", func() bool { _, bs := f.buttonsOf("What name?"); return len(bs) > 0 })
	// mallory's typed text is ignored; alice's answers.
	e.send("mallory", "evil")
	e.send("alice", "trio")
	f.waitFor(t, "the end", func() bool { return f.has("Thanks.") && f.has("✅ Answered") })
	e.idle()
	res := e.toolResults()
	if len(res) != 1 {
		t.Fatalf("tool results = %q", res)
	}
	for _, want := range []string{"Which database?", "PostgreSQL", "Slack, Telegram", "trio"} {
		if !strings.Contains(res[0], want) {
			t.Errorf("the answers did not reach the model: %q lacks %q", res[0], want)
		}
	}
	if strings.Contains(res[0], "evil") {
		t.Errorf("a user not allowed answered: %q", res[0])
	}
	if p := e.prompts(); len(p) != 1 {
		t.Errorf("prompts run: %q, want one (typed answers are no prompts)", p)
	}
}
