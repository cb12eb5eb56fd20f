package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permit"
)

func elicitEvent(t *testing.T, e permit.ElicitRequest) event.Event {
	t.Helper()
	in, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return event.Event{Type: event.PermissionRequest, RequestID: "1", ToolName: "mcp__" + e.Server + "__elicitation",
		Input: in, Meta: map[string]any{"kind": string(permission.Elicitation)}}
}

const osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07"

// An MCP server's form: defaults shown, a wrong field named (the form
// stays), then the fixed values accepted with the default of the field
// left alone; the server's text cannot drive the terminal.
func TestElicitFormInTheTerminal(t *testing.T) {
	schema := `{"type":"object","properties":{
		"name":{"type":"string","title":"Your name` + `","description":"as on the badge"},
		"age":{"type":"integer","title":"Age","minimum":1},
		"color":{"type":"string","title":"Colour","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},
		"ok":{"type":"boolean","title":"Subscribe","default":true}},"required":["name","age"]}`
	be := &fakeBackend{info: SessionInfo{ID: "s", Mode: "normal"}}
	h := newHarness(t, Options{Backend: be})
	h.events(elicitEvent(t, permit.ElicitRequest{Server: "srv" + osc52, Mode: "form", Message: "Who are you?" + osc52, Schema: json.RawMessage(schema)}))
	for _, s := range []string{"MCP server srv", "Who are you?", "Your name", "as on the badge", "Age", "‹ Green ›", "[x] yes"} {
		h.mustShow(s)
	}
	if strings.Contains(h.m.screen(), "]52;") {
		t.Fatal("a terminal control from the server reached the screen")
	}
	h.typeText("Ana")
	h.press(tea.KeyTab, 0)
	h.typeText("x")
	h.press(tea.KeyEnter, 0)
	h.mustShow("Age: \"x\" is not a whole number")
	if got, _ := repliesAfter(t, be, 0); len(got) != 0 {
		t.Fatalf("an invalid form was answered: %+v", got)
	}
	h.press(tea.KeyBackspace, 0)
	h.typeText("0")
	h.press(tea.KeyEnter, 0)
	h.mustShow("Age: must be at least 1")
	h.press(tea.KeyBackspace, 0)
	h.typeText("42")
	h.press(tea.KeyTab, 0)
	h.press(tea.KeyLeft, 0) // Green -> Red
	h.press(tea.KeyEnter, 0)
	replies, _ := repliesAfter(t, be, 1)
	if len(replies) != 1 {
		t.Fatalf("replies %+v\n%s", replies, h.plain())
	}
	a := replies[0]
	var got map[string]any
	_ = json.Unmarshal(a.UpdatedInput, &got)
	if a.Decision != permission.AllowOnce || got["name"] != "Ana" || got["age"] != float64(42) || got["color"] != "r" || got["ok"] != true {
		t.Errorf("answer %+v values %v", a, got)
	}
}

// Decline and cancel, and URL mode: the page shown, enter accepts.
func TestElicitDeclineCancelAndURL(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
	for _, c := range []struct {
		key  tea.KeyPressMsg
		want string
	}{{tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}, permission.DenyCall}, {tea.KeyPressMsg{Code: tea.KeyEscape}, permission.Cancel}} {
		be := &fakeBackend{info: SessionInfo{ID: "s", Mode: "normal"}}
		h := newHarness(t, Options{Backend: be})
		h.events(elicitEvent(t, permit.ElicitRequest{Server: "s", Mode: "form", Message: "m", Schema: schema}))
		h.send(c.key)
		h.settle()
		replies, canceled := repliesAfter(t, be, 1)
		if len(replies) != 1 || replies[0].Decision != c.want || canceled != 0 {
			t.Errorf("%v: replies %+v, canceled %d", c.key, replies, canceled)
		}
	}
	be := &fakeBackend{info: SessionInfo{ID: "s", Mode: "normal"}}
	h := newHarness(t, Options{Backend: be})
	h.events(elicitEvent(t, permit.ElicitRequest{Server: "s", Mode: "url", Message: "Sign in", URL: "https://example.com/auth?x=1", ID: "e1"}))
	h.mustShow("https://example.com/auth?x=1")
	h.press(tea.KeyEnter, 0)
	if replies, _ := repliesAfter(t, be, 1); len(replies) != 1 || replies[0].Decision != permission.AllowOnce {
		t.Errorf("url accept: %+v", replies)
	}
}

// A multi-select enum: right moves along the choices, space toggles one.
func TestElicitMultiSelectInTheTerminal(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"tags":{"type":"array","title":"Tags","minItems":1,
		"items":{"anyOf":[{"const":"x","title":"Ex"},{"const":"y","title":"Why"}]}}},"required":["tags"]}`)
	be := &fakeBackend{info: SessionInfo{ID: "s", Mode: "normal"}}
	h := newHarness(t, Options{Backend: be})
	h.events(elicitEvent(t, permit.ElicitRequest{Server: "s", Mode: "form", Message: "m", Schema: schema}))
	h.mustShow("[ ] Ex")
	h.press(tea.KeyEnter, 0)
	h.mustShow("Tags: required")
	h.press(tea.KeyRight, 0)
	h.press(tea.KeySpace, 0)
	h.mustShow("[x] Why")
	h.press(tea.KeyEnter, 0)
	if replies, _ := repliesAfter(t, be, 1); len(replies) != 1 || string(replies[0].UpdatedInput) != `{"tags":["y"]}` {
		t.Fatalf("replies %+v", replies)
	}
}

// repliesAfter waits (up to 10 s) until the backend took n replies (the
// dialog answers from a command's goroutine) and returns them with the
// count of canceled turns, read under the backend's lock.
func repliesAfter(t *testing.T, be *fakeBackend, n int) ([]permission.Answer, int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		be.mu.Lock()
		got, canceled := append([]permission.Answer(nil), be.replies...), be.canceled
		be.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			return got, canceled
		}
		time.Sleep(10 * time.Millisecond)
	}
}
