package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

const hostile = "title\x1b]0;owned\x07\x1b[2J\rgone"

// What the text printer sends to a terminal has its control characters
// escaped; the same events in JSON keep their bytes.
func TestTextOutputEscapesForTerminal(t *testing.T) {
	t.Parallel()
	var out, errw bytes.Buffer
	p := newPrinter("text", &out, &errw, true)
	p.safeOut, p.safeErr = termsafe.Text, termsafe.Text // as on a terminal
	p.Emit(event.Event{Type: event.Text, MessageID: "m", Text: "answer " + hostile + "\nnext line"})
	p.Emit(event.Event{Type: event.ToolUse, ToolName: "Bash", Input: []byte(`{"command":"echo \u001b[31m"}`)})
	p.Emit(event.Event{Type: event.ToolResult, ToolName: "Bash", Output: hostile})
	p.finish(event.Event{Type: event.Result, IsError: true, Subtype: "error", Error: hostile, Usage: &message.Usage{}})
	for name, s := range map[string]string{"stdout": out.String(), "stderr": errw.String()} {
		if strings.ContainsAny(s, "\x1b\x07\r") {
			t.Errorf("%s has raw control characters: %q", name, s)
		}
	}
	if !strings.Contains(out.String(), "\nnext line") {
		t.Errorf("newlines must stay: %q", out.String())
	}

	var js bytes.Buffer
	jp := newPrinter("stream-json", &js, &errw, false)
	jp.Emit(event.Event{Type: event.Text, Text: hostile})
	if !strings.Contains(js.String(), `\u001b]0;owned\u0007`) {
		t.Errorf("stream-json changed: %s", js.String())
	}
}

func TestSessionListEscapesTitles(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	printSessionList(&out, []session.Summary{{ID: "ses_1", Title: hostile + "\nsecond", Model: "m", UpdatedAt: time.Now()}}, termsafe.Line)
	s := out.String()
	if strings.ContainsAny(s, "\x1b\x07\r") || strings.Count(s, "\n") != 2 {
		t.Errorf("list: %q", s)
	}
	if !strings.Contains(s, `title\x1b]0;owned\x07`) {
		t.Errorf("title not shown escaped: %q", s)
	}
}
