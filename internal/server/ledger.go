package server

import (
	"context"
	"log/slog"
	"sync"

	"github.com/tandem-agent/tandem/internal/accounts"
)

// dayLedger is one running turn's view of its user's daily spend
// (turn.Ledger): each model call's cost goes into the store's day total as
// it is made, and the turn reads that total, every turn of the user's on
// every replica sharing the store, before each call. So turns running side
// by side stop together at serve.user_daily_budget_usd instead of each
// spending the whole rest of the day. The day is UTC and taken at each
// call: a turn running across midnight counts each call on its own day.
type dayLedger struct {
	acc   *accounts.Service
	log   *slog.Logger
	user  string
	limit float64

	mu sync.Mutex
	// stored is what this turn's calls added to the store; unstored what
	// the store refused, counted here and stored at the turn's end
	// (settle) with whatever else the turn spent outside its budget.
	stored, unstored float64
	// seen is the last day total read or written (on seenDay), the
	// fallback when a read fails.
	seen    float64
	seenDay string
}

func (s *Server) newDayLedger(user string) *dayLedger {
	return &dayLedger{acc: s.accounts, log: s.log, user: user, limit: s.opts.Limits.DailyBudgetUSD}
}

// Record implements turn.Ledger: one statement adding usd to today's total.
// It runs even when the turn was just interrupted: the call was paid.
func (l *dayLedger) Record(ctx context.Context, usd float64) {
	if usd <= 0 {
		return
	}
	day := today()
	total, err := l.acc.AddSpend(context.WithoutCancel(ctx), l.user, day, usd)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.unstored += usd
		l.log.Error("record a model call's spend: kept by the turn, stored when it ends", "user", l.user, "usd", usd, "err", err)
		return
	}
	l.stored += usd
	l.seen, l.seenDay = total, day
}

// Spent implements turn.Ledger: today's total in the store, plus what this
// turn could not store. A failed read falls back on the last total seen
// today: the turn goes on counting its own spend.
func (l *dayLedger) Spent(ctx context.Context) float64 {
	day := today()
	total, err := l.acc.Spend(ctx, l.user, day)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.log.Error("read today's spend before a model call: counting the last total seen", "user", l.user, "err", err)
		total = 0
		if l.seenDay == day {
			total = l.seen
		}
	} else {
		l.seen, l.seenDay = total, day
	}
	return total + l.unstored
}

// Limit implements turn.Ledger.
func (l *dayLedger) Limit() float64 { return l.limit }

// settle is what of a turn's whole cost its calls did not store as they
// were made: spends the store refused, what tools spent outside the
// budget (WebFetch's summaries), all of it under a runtime that records
// nothing per call (claude-code). cost nil: the turn's cost is unknown,
// only what was refused is owed.
func (l *dayLedger) settle(cost *float64) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	owed := l.unstored
	if cost != nil {
		// The turn's cost has every call the budget recorded (sub-agents'
		// too, added when their tool call ends); rounding aside, the rest
		// is owed. An interrupted sub-agent's calls may be missing from
		// it: what was refused is owed all the same.
		if rest := *cost - l.stored; rest > costEpsilon {
			owed = max(owed, rest)
		}
	}
	return owed
}

// costEpsilon is below any call's cost: a difference of floating-point
// sums taken in another order, not a spend.
const costEpsilon = 1e-9
