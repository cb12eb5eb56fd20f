package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/turn"
)

// The harness prices a token at $1: each tool step costs $10. With a $15
// budget the second step reaches it; its tools still run, and no third
// call is made.
func TestMaxBudgetStopsBeforeTheNextCall(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{"a":1}`}), toolStep([2]string{"Echo", `{"a":2}`}), textStep("x"))
	res := h.run(t, context.Background(), turn.Input{MaxBudgetUSD: 15})
	if res.Subtype != event.SubtypeMaxBudget || !res.IsError || res.NumTurns != 2 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Error, "spent $20.0000 of the $15.00 budget") {
		t.Errorf("error %q", res.Error)
	}
	if n := len(h.prov.calls); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	if res.CostUSD == nil || *res.CostUSD != 20 {
		t.Errorf("cost %v", res.CostUSD)
	}
	// The step that reached the budget has its results: nothing dangles.
	msgs := h.rec.Messages()
	if last := msgs[len(msgs)-1]; last.Role != message.User || last.Content[0].Type != message.ToolResult {
		t.Errorf("last stored message %+v", last)
	}
}

// A budget that cannot be counted stops the turn before it spends
// anything, naming the fix.
func TestMaxBudgetWithUnknownPrice(t *testing.T) {
	h := newHarness(t, textStep("x"))
	h.rt.opts.Models = ResolverFunc(func(string) (Model, error) { return Model{Provider: h.prov, ID: "m"}, nil })
	res := h.run(t, context.Background(), turn.Input{Model: "local/m", MaxBudgetUSD: 1})
	if res.Subtype != event.SubtypeMaxBudget || len(h.prov.calls) != 0 {
		t.Fatalf("result %+v after %d calls", res, len(h.prov.calls))
	}
	if !strings.Contains(res.Error, "price of local/m is unknown") || !strings.Contains(res.Error, ".price") {
		t.Errorf("error %q", res.Error)
	}
	// Without a budget the same model runs.
	h = newHarness(t, textStep("x"))
	h.rt.opts.Models = ResolverFunc(func(string) (Model, error) { return Model{Provider: h.prov, ID: "m"}, nil })
	if res := h.run(t, context.Background(), turn.Input{}); res.Subtype != event.SubtypeSuccess {
		t.Fatalf("no budget: %+v", res)
	}
}
