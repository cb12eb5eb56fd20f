package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// A notice queued by background work (tool.Notify) reaches the model with
// the next recorded user message: the prompt when queued between turns,
// the tool results when queued during a step; each once.
func TestNoticesReachTheModel(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{"x":1}`}), textStep("done"))
	tool.Notify(h.deps.Env, "Background shell bash_1 (`make`) exited with code 0.")
	h.echo.onRun = func() { tool.Notify(h.deps.Env, "Background shell bash_2 (`sleep 1`) was stopped.") }
	h.run(t, context.Background(), turn.Input{Prompt: "go"})
	msgs := h.rec.Messages()
	if len(msgs) != 4 {
		t.Fatalf("stored %d messages", len(msgs))
	}
	text := func(i int) string {
		var b strings.Builder
		for _, bl := range msgs[i].Content {
			b.WriteString(bl.Text)
		}
		return b.String()
	}
	if got := text(0); !strings.Contains(got, "bash_1 (`make`) exited with code 0") || strings.Contains(got, "bash_2") {
		t.Errorf("prompt message: %q", got)
	}
	if got := text(2); !strings.Contains(got, "<system-reminder>") || !strings.Contains(got, "bash_2 (`sleep 1`) was stopped") || strings.Contains(got, "bash_1") {
		t.Errorf("tool results message: %q", got)
	}
	if len(tool.TakeNotices(h.deps.Env)) != 0 {
		t.Error("notices left in the queue")
	}
}
