package permission

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
)

type eventLog struct {
	mu     sync.Mutex
	events []event.Event
	seen   chan event.Event
}

func newEventLog() *eventLog { return &eventLog{seen: make(chan event.Event, 100)} }

func (l *eventLog) emit(e event.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	l.seen <- e
}

func TestBrokerFirstAnswerWins(t *testing.T) {
	log := newEventLog()
	b := NewBroker(log.emit)
	work := t.TempDir()
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: b})
	done := make(chan Decision)
	go func() {
		d, err := e.Check(context.Background(), Request{Tool: "Bash", ToolUseID: "tu9", Input: []byte(`{"command":"npm install"}`)})
		if err != nil {
			t.Error(err)
		}
		done <- d
	}()
	req := <-log.seen
	if req.Type != event.PermissionRequest || req.Summary != "Run `npm install`" || req.Suggestion != "Bash(npm install:*)" || req.ToolUseID != "tu9" {
		t.Fatalf("request event: %+v", req)
	}
	if len(b.Pending()) != 1 {
		t.Fatalf("pending: %v", b.Pending())
	}
	const clients = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, losses := 0, 0
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ans := Answer{Decision: AllowOnce, By: "client"}
			if i%2 == 0 {
				ans = Answer{Decision: DenyCall, Message: "no", By: "client"}
			}
			err := b.Reply(req.RequestID, ans)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, ErrAlreadyAnswered), errors.Is(err, ErrUnknownRequest):
				losses++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	d := <-done
	if wins != 1 || losses != clients-1 {
		t.Fatalf("wins %d losses %d", wins, losses)
	}
	reply := <-log.seen
	if reply.Type != event.PermissionReply || reply.RequestID != req.RequestID || reply.Meta["by"] != "client" {
		t.Errorf("reply event: %+v", reply)
	}
	if (reply.Decision == AllowOnce) != (d.Behavior == Allow) {
		t.Errorf("decision %+v does not match the winning reply %s", d, reply.Decision)
	}
	if err := b.Reply("nope", Answer{Decision: AllowOnce}); !errors.Is(err, ErrUnknownRequest) {
		t.Errorf("unknown id: %v", err)
	}
}

func TestAllowAlwaysSavesRules(t *testing.T) {
	work := t.TempDir()
	store := NewMemoryGrantStore()
	answer := Answer{Decision: AllowAlways, Scope: ScopeProject}
	var asked []Question
	asker := AskerFunc(func(_ context.Context, q Question) (Answer, error) { asked = append(asked, q); return answer, nil })
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: asker, GrantStore: store})
	if d := check(t, e, "Bash", map[string]string{"command": "npm install left-pad"}); d.Behavior != Allow {
		t.Fatalf("%+v", d)
	}
	if got := store.Rules(ScopeProject); len(got) != 1 || got[0].String() != "Bash(npm install:*)" {
		t.Fatalf("saved %v", got)
	}
	if d := check(t, e, "Bash", map[string]string{"command": "npm install react"}); d.Behavior != Allow || len(asked) != 1 {
		t.Errorf("the saved rule must apply at once: %+v, asked %d", d, len(asked))
	}
	// Interpreters and wrappers never offer allow always.
	for _, cmd := range []string{"bash -c 'make'", "python -c 'x'", "node -e 'x'", "env make", "sudo make", "xargs make", "eval make", "exec make"} {
		answer = Answer{Decision: AllowOnce}
		check(t, e, "Bash", map[string]string{"command": cmd})
		if q := asked[len(asked)-1]; q.AlwaysOffered() || q.Suggestion != "" {
			t.Errorf("%s offered allow always: %q", cmd, q.Suggestion)
		}
		if err := (Answer{Decision: AllowAlways}).Validate(asked[len(asked)-1]); err == nil {
			t.Errorf("%s: allow_always must be refused", cmd)
		}
	}
	// Deny with a message reaches the model.
	answer = Answer{Decision: DenyCall, Message: "use make test instead"}
	if d := check(t, e, "Bash", map[string]string{"command": "make deploy"}); d.Behavior != Deny || !strings.Contains(d.Message, "use make test instead") {
		t.Errorf("deny message: %+v", d)
	}
}

func TestEditQuestionCarriesDiff(t *testing.T) {
	work := t.TempDir()
	var q Question
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Mode: Normal, Asker: AskerFunc(func(_ context.Context, qq Question) (Answer, error) {
		q = qq
		return Answer{Decision: AllowOnce}, nil
	})})
	outside := t.TempDir() + "/f.txt"
	writeFile(t, outside, "one\ntwo\n")
	check(t, e, "Edit", map[string]any{"file_path": outside, "old_string": "two", "new_string": "three"})
	if !strings.Contains(q.Diff, "-two") || !strings.Contains(q.Diff, "+three") || !strings.HasPrefix(q.Summary, "Edit ") {
		t.Errorf("question: %+v", q)
	}
}

func TestNoTerminalDeniesWithExplanation(t *testing.T) {
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: t.TempDir()})
	d := check(t, e, "Bash", map[string]string{"command": "make test"})
	if d.Behavior != Deny || !strings.Contains(d.Message, "no terminal to ask") || !strings.Contains(d.Message, "--allowedTools 'Bash(make test:*)'") ||
		!strings.Contains(d.Message, "--permission-mode trust") || !strings.Contains(d.Message, ".tandem/config.json") {
		t.Errorf("%+v", d)
	}
}
