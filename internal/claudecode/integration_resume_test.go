package claudecode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

// A turn interrupted while its model call hangs (as a draining replica
// interrupts it to hand it over), then run again with Resume (as the
// replica that takes it over does): the real CLI's request carries the
// user's message once, though its transcript already held it, and the
// prompt is stored once.
func TestRealCLIResumedTurnSendsThePromptOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("first answer"),
		scripted.TextStep("never seen").WithFault(scripted.Fault{FirstByteDelayMS: 120000, Times: 1}),
		scripted.TextStep("second answer"),
	}})
	rt := New(h.cfg, h.opts)
	if r := h.run(context.Background(), rt, h.input("one"), permission.AllowAll{}); r.Result != "first answer" {
		t.Fatalf("first turn: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for len(h.srv.MainRequests()) < 2 { // the second turn's call is out
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
	}()
	if r := h.run(ctx, rt, h.input("two"), permission.AllowAll{}); r.Subtype != event.SubtypeInterrupted {
		t.Fatalf("the interrupted turn: %+v", r)
	}
	in := h.input("two")
	in.Resume = true
	r := h.run(context.Background(), rt, in, permission.AllowAll{})
	if r.IsError || r.Result == "" {
		t.Fatalf("the resumed turn: %+v", r)
	}
	main := h.srv.MainRequests()
	last := main[len(main)-1]
	if n := countText(last.Messages(), "two"); n != 1 {
		body, _ := json.Marshal(last.Messages())
		t.Errorf("the resumed turn's request has the prompt %d times, want once: %s", n, body)
	}
	if n := countText(last.Messages(), "one"); n != 1 {
		t.Errorf("the resumed turn's request has the first prompt %d times, want once (the conversation resumed)", n)
	}
	stored := 0
	msgs, _ := h.rec.History(context.Background())
	for _, m := range msgs {
		if m.Role == message.User && strings.TrimSpace(m.PlainText()) == "two" {
			stored++
		}
	}
	if stored != 1 {
		t.Errorf("the prompt is stored %d times, want once", stored)
	}
}

// countText counts the user messages of an Anthropic request whose text
// (a string, or a text block) is exactly text.
func countText(msgs []any, text string) int {
	n := 0
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] != "user" {
			continue
		}
		switch c := mm["content"].(type) {
		case string:
			if strings.TrimSpace(c) == text {
				n++
			}
		case []any:
			for _, b := range c {
				bb, _ := b.(map[string]any)
				if s, _ := bb["text"].(string); bb["type"] == "text" && strings.TrimSpace(s) == text {
					n++
				}
			}
		}
	}
	return n
}

// resumePoint: a run that recorded nothing of the CLI's output resumes the
// transcript before the prompt and sends it again; one that recorded
// some resumes at its last entry with the note; a first turn that
// recorded nothing starts a fresh conversation.
func TestResumePoint(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name                   string
		base, id, last         string
		wantID, wantAt, wantTx string
	}{
		{"nothing recorded", "s1 u1", "s1", "u1", "s1", "u1", "two"},
		{"nothing recorded, new session id", "s1 u1", "s2", "u1", "s1", "u1", "two"},
		{"steps recorded", "s1 u1", "s1", "u7", "s1", "u7", resumeNote},
		{"first turn, nothing recorded", " ", "s9", "", "", "", "two"},
		{"first turn, steps recorded", " ", "s9", "u3", "s9", "u3", resumeNote},
	} {
		rec := &turntest.Recorder{}
		_ = rec.SetMeta(ctx, MetaTurnBase, c.base)
		_ = rec.SetMeta(ctx, MetaSessionID, c.id)
		_ = rec.SetMeta(ctx, MetaLastUUID, c.last)
		id, at, tx := resumePoint(ctx, rec, "two")
		if id != c.wantID || at != c.wantAt || tx != c.wantTx {
			t.Errorf("%s: %q %q %q, want %q %q %q", c.name, id, at, tx, c.wantID, c.wantAt, c.wantTx)
		}
	}
}
