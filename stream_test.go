package tandem_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem"
	"github.com/tandem-agent/tandem/internal/scripted"
)

func TestStreamYieldsTheTurnsEvents(t *testing.T) {
	st := newStack(t, scripted.TextStep("streamed answer"))
	eng := st.open(tandem.Options{})
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []tandem.EventType
	var text strings.Builder
	var result tandem.Event
	for e, err := range s.Stream(testCtx(t), "go", nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Type)
		if e.Type == tandem.EventText {
			text.WriteString(e.Text)
		}
		if e.Type == tandem.EventResult {
			result = e
		}
	}
	if len(got) == 0 || got[0] != tandem.EventStatus || got[len(got)-1] != tandem.EventDone {
		t.Fatalf("events: %v", got)
	}
	if text.String() != "streamed answer" || result.Result != "streamed answer" || result.Subtype != tandem.SubtypeSuccess {
		t.Errorf("text %q, result %+v", text.String(), result)
	}
}

// blockingTool runs until its context ends: a turn that calls it ends
// only by an interrupt.
func blockingTool() tandem.Tool {
	return tandem.Tool{Name: "wait", Description: "Wait.", ReadOnly: true,
		Run: func(ctx context.Context, call tandem.ToolCall) (tandem.ToolResult, error) {
			<-ctx.Done()
			return tandem.ToolResult{}, ctx.Err()
		}}
}

func TestStreamStoppedEarlyInterruptsTheTurn(t *testing.T) {
	st := newStack(t, scripted.ToolStep(scripted.CallID("w1", "wait", map[string]any{})), scripted.TextStep("after"),
		scripted.TextStep("second turn"))
	eng := st.open(tandem.Options{Tools: []tandem.Tool{blockingTool()}})
	var rec recorder
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for e, err := range s.Stream(testCtx(t), "wait", nil) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == tandem.EventToolUse {
			break // the tool runs (or is about to) and would never return
		}
	}
	// The loop returned only after the turn ended, interrupted.
	res := rec.ofType(tandem.EventResult)
	if len(res) != 1 || res[0].Subtype != tandem.SubtypeInterrupted {
		t.Fatalf("result events after stopping: %+v", res)
	}
	// The session takes the next turn.
	r, err := s.Run(testCtx(t), "again", nil)
	if err != nil || r.IsError {
		t.Fatalf("next turn: %+v, %v", r, err)
	}
}
