package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
)

// A question or plan is the model's own input: terminal controls in any
// of its texts (here OSC 52, which would write the user's clipboard, and a
// title change) are shown stripped, never sent to the terminal.
func TestInteractionTextCannotDriveTheTerminal(t *testing.T) {
	const osc52, title = "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]0;pwned\x07"
	q, _ := json.Marshal(map[string]any{"questions": []map[string]any{{
		"question": "Which one?" + osc52, "header": "Pick" + title,
		"options": []map[string]string{{"label": "A" + osc52, "description": "first" + title}, {"label": "B", "description": "second"}},
	}}})
	plan, _ := json.Marshal(map[string]string{"plan": "1. do it" + osc52 + title})
	for _, c := range []struct {
		kind  permission.Interaction
		input json.RawMessage
		shows string
	}{{permission.UserQuestion, q, "Which one?"}, {permission.PlanApproval, plan, "do it"}} {
		be := &fakeBackend{info: SessionInfo{ID: "s", Mode: "explore"}}
		h := newHarness(t, Options{Backend: be})
		h.events(event.Event{Type: event.PermissionRequest, RequestID: "1", ToolName: "AskUserQuestion", ToolUseID: "t1",
			Input: c.input, Meta: map[string]any{"kind": string(c.kind)}})
		h.mustShow(c.shows)
		if screen := h.m.screen(); strings.Contains(screen, "]52;") || strings.Contains(screen, "]0;pwned") {
			t.Errorf("%s: a terminal control from the model's input reached the screen: %q", c.kind, screen)
		}
	}
}
