package agent

import (
	"context"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/turn"
)

// A turn resumed on another replica goes on from the stored conversation
// (its prompt and the tool call whose result was lost) without adding the
// prompt again.
func TestResumeContinuesFromTheStoredConversation(t *testing.T) {
	h := newHarness(t, textStep("finished"))
	ctx := context.Background()
	_ = h.rec.Append(ctx, message.Message{ID: "msg_u", Role: message.User, Content: []message.Block{message.TextBlock("do it")}})
	_ = h.rec.Append(ctx, assistantMessage(ctx, &turnState{}, toolStep([2]string{"Echo", `{"x":1}`}).Content, nil))
	res := h.run(t, ctx, turn.Input{Prompt: "do it", Resume: true})
	if res.Subtype != event.SubtypeSuccess || res.Result != "finished" {
		t.Fatalf("result %+v", res)
	}
	msgs := h.rec.Messages()
	if len(msgs) != 3 || msgs[2].Role != message.Assistant {
		t.Fatalf("stored %d messages, want the two before and the answer: %+v", len(msgs), msgs)
	}
}

// A turn whose answer was stored before its replica died ends at once.
func TestResumeOfAFinishedTurnCallsNoModel(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	_ = h.rec.Append(ctx, message.Message{ID: "msg_u", Role: message.User, Content: []message.Block{message.TextBlock("do it")}})
	_ = h.rec.Append(ctx, message.Message{ID: "msg_a", Role: message.Assistant, Content: []message.Block{message.TextBlock("done before")}})
	res := h.run(t, ctx, turn.Input{Prompt: "do it", Resume: true})
	if res.Subtype != event.SubtypeSuccess || res.Result != "done before" || len(h.rec.Messages()) != 2 {
		t.Fatalf("result %+v, %d messages", res, len(h.rec.Messages()))
	}
}
