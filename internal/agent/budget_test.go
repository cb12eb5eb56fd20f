package agent

import (
	"context"
	"strings"
	"sync"
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

// dayLedger is a day's spending shared by turns, in memory.
type dayLedger struct {
	mu    sync.Mutex
	spent float64
	limit float64
	reads int
}

func (l *dayLedger) Record(_ context.Context, usd float64) {
	l.mu.Lock()
	l.spent += usd
	l.mu.Unlock()
}

func (l *dayLedger) Spent(context.Context) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	return l.spent
}

func (l *dayLedger) Limit() float64 { return l.limit }

// A turn backed by a day's ledger records each call in it and stops before
// a call once the day's total (another turn's $10 included) reaches the
// day's $25, though its own $20 is far from its own $100.
func TestDayLedgerStopsBeforeTheNextCall(t *testing.T) {
	day := &dayLedger{spent: 10, limit: 25}
	h := newHarness(t, toolStep([2]string{"Echo", `{"a":1}`}), toolStep([2]string{"Echo", `{"a":2}`}), textStep("x"))
	res := h.run(t, context.Background(), turn.Input{MaxBudgetUSD: 100, Ledger: day})
	if res.Subtype != event.SubtypeMaxBudget || !res.IsError || res.NumTurns != 2 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Error, "spent $30.0000 of today's $25.00 budget") {
		t.Errorf("error %q", res.Error)
	}
	if n := len(h.prov.calls); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	if day.spent != 30 || day.reads != 3 {
		t.Errorf("the day has $%v after %d reads, want $30 after 3 (one before each call, and the one that stopped)", day.spent, day.reads)
	}
	// The turn's own limit still holds on its own: whichever comes first.
	day = &dayLedger{limit: 1000}
	h = newHarness(t, toolStep([2]string{"Echo", `{"a":1}`}), toolStep([2]string{"Echo", `{"a":2}`}), textStep("x"))
	res = h.run(t, context.Background(), turn.Input{MaxBudgetUSD: 15, Ledger: day})
	if res.Subtype != event.SubtypeMaxBudget || !strings.Contains(res.Error, "of the $15.00 budget (--max-budget-usd)") || day.spent != 20 {
		t.Fatalf("result %+v, day $%v", res, day.spent)
	}
	// A day's ledger alone (no budget of the turn's own) holds too.
	day = &dayLedger{spent: 995, limit: 1000}
	h = newHarness(t, toolStep([2]string{"Echo", `{"a":1}`}), textStep("x"))
	res = h.run(t, context.Background(), turn.Input{Ledger: day})
	if res.Subtype != event.SubtypeMaxBudget || res.NumTurns != 1 || day.spent != 1005 {
		t.Fatalf("result %+v, day $%v", res, day.spent)
	}
}
