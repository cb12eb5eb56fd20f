package server

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/store/sqlite"
)

// A day's ledger records each call in the store, even one made as its turn
// was interrupted. A spend the store refuses is logged and kept: the turn
// counts it before its next call, and the turn's end owes it (with the
// rest of the turn's cost not yet stored), so it is not lost.
func TestDayLedgerKeepsWhatTheStoreRefused(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	acc := accounts.New(st)
	u, _, err := acc.Add(ctx, "test", "ann", false)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	l := &dayLedger{acc: acc, log: slog.New(slog.NewTextHandler(&logs, nil)), user: u.ID, limit: 10}
	interrupted, cancel := context.WithCancel(ctx)
	cancel()
	l.Record(interrupted, 2)
	if got, err := acc.Spend(ctx, u.ID, today()); err != nil || got != 2 {
		t.Fatalf("stored after an interrupted call: $%v, %v; want $2", got, err)
	}
	if got := l.Spent(ctx); got != 2 {
		t.Fatalf("Spent = $%v, want $2", got)
	}
	st.Close() // from here every statement fails
	l.Record(ctx, 3)
	if !strings.Contains(logs.String(), "record a model call's spend") {
		t.Errorf("the refused spend was not logged: %s", logs.String())
	}
	if got := l.Spent(ctx); got != 5 {
		t.Errorf("Spent with the store failing = $%v, want the last total seen and the kept $3: $5", got)
	}
	cost := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		cost *float64
		want float64
	}{{cost(5), 3}, {nil, 3}, {cost(6), 4}, {cost(1), 3}} {
		if got := l.settle(c.cost); got != c.want {
			t.Errorf("settle(%v) = $%v, want $%v", c.cost, got, c.want)
		}
	}
}

// A turn admitted while the day had $10 left but run after another spent
// $9.50 of it (it was queued behind that one) starts with at most the
// $0.50 left as its own budget: the claude-code runtime, which cannot ask
// the day before each call, keeps to that alone (--max-budget-usd), so an
// admission-time budget would let each queued turn spend the whole
// remainder again. A day spent in full leaves the turn a budget too
// small for more than one call, never none (0 is no limit).
func TestQueuedTurnStartsWithWhatIsLeftOfTheDay(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acc := accounts.New(st)
	u, _, err := acc.Add(ctx, "test", "ann", false)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{accounts: acc, log: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), base: ctx,
		opts: Options{Limits: Limits{DailyBudgetUSD: 10}}}
	turn := queuedTurn{text: "queued", user: u.ID}
	if e := s.admitUserTurn(ctx, u.ID, "ses_1", &turn); e != nil || turn.opts.MaxBudgetUSD != 10 {
		t.Fatalf("admitted with $%v, %v; want the day's $10", turn.opts.MaxBudgetUSD, e)
	}
	if _, err := acc.AddSpend(ctx, u.ID, today(), 9.5); err != nil { // the turn ahead of it
		t.Fatal(err)
	}
	ended := s.turnRunning(&turn)
	ended(nil, false)
	if got := turn.opts.MaxBudgetUSD; got <= 0 || got > 0.5+1e-9 {
		t.Errorf("the queued turn runs with a budget of $%v, want at most the $0.50 left", got)
	}
	if _, err := acc.AddSpend(ctx, u.ID, today(), 1); err != nil {
		t.Fatal(err)
	}
	late := queuedTurn{text: "late", user: u.ID, opts: turn.opts}
	late.opts.MaxBudgetUSD = 10
	s.turnRunning(&late)(nil, false)
	if got := late.opts.MaxBudgetUSD; got <= 0 || got > 0.01 {
		t.Errorf("a turn starting with the day spent runs with $%v, want a token budget above 0", got)
	}
}
