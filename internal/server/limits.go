package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/tandem-agent/tandem/internal/turnqueue"
)

// Limits are what one user may use of a team's server (config serve:
// user_daily_budget_usd, user_max_concurrent_turns); zero: no limit.
type Limits struct {
	DailyBudgetUSD float64
	MaxTurns       int
}

func today() string { return time.Now().UTC().Format(time.DateOnly) }

// admitTurn checks the caller's limits before a turn is queued and
// narrows the turn's budget to what is left of the day's (all the
// claude-code runtime, which cannot be checked before each model call,
// keeps to); the turn carries the user so it is counted while it runs,
// and the native loop checks the day's total, every turn of the user's
// included, before each call (turnRunning, ledger.go).
func (s *Server) admitTurn(r *http.Request, t *queuedTurn) *apiError {
	return s.admitUserTurn(r.Context(), callerOf(r).user.ID, r.PathValue("id"), t)
}

// admitUserTurn is admitTurn for a turn of user's in session: the
// HTTP API's caller, or the owner a chat bridge acts as (shared.go).
func (s *Server) admitUserTurn(ctx context.Context, user, session string, t *queuedTurn) *apiError {
	if user == "" {
		return nil // the server token, or a bridge with no owner: no users, no per-user limits
	}
	t.user = user
	lim := s.opts.Limits
	if lim.DailyBudgetUSD > 0 {
		spent, err := s.accounts.Spend(ctx, user, today())
		if err != nil {
			return errf(http.StatusInternalServerError, "accounts", "could not read today's spend: %v", err)
		}
		left := lim.DailyBudgetUSD - spent
		if left <= 0 {
			return errf(http.StatusTooManyRequests, "user_budget_exhausted",
				"you have spent $%.2f today, this server's daily budget per user (serve.user_daily_budget_usd is $%.2f): it resets at 00:00 UTC, or ask an admin to raise it", spent, lim.DailyBudgetUSD)
		}
		if t.opts.MaxBudgetUSD == 0 || t.opts.MaxBudgetUSD > left {
			t.opts.MaxBudgetUSD = left
		}
	}
	if lim.MaxTurns > 0 {
		// Counted in the store from here to the turn's end, whichever
		// replica admits or runs it (a prompt queued behind another
		// counts): two replicas admitting at once cannot both pass.
		id := t.id
		if id == "" {
			id = newTurnID(session)
		}
		ok, err := s.accounts.AdmitTurn(ctx, user, id, lim.MaxTurns)
		if err != nil {
			return errf(http.StatusInternalServerError, "accounts", "could not count your running turns: %v", err)
		}
		if !ok {
			return errf(http.StatusTooManyRequests, "user_turn_limit",
				"you have %d turns running or queued, the most this server allows one user (serve.user_max_concurrent_turns): wait for one to end or interrupt it", lim.MaxTurns)
		}
		t.id, t.slot = id, true
	}
	return nil
}

// newTurnID names a turn: the durable workflow's id, so the store's row
// of an admitted turn and the turn queue's name the same turn.
func newTurnID(session string) string { return turnqueue.NewID(session) }

// turnRefused gives back the place of a turn admitted but not queued, or
// dropped from the queue before it ran.
func (s *Server) turnRefused(t queuedTurn) {
	if t.slot {
		s.endUserTurn(t.id)
	}
}

func (s *Server) endUserTurn(id string) {
	if err := s.accounts.EndTurn(context.WithoutCancel(s.base), id); err != nil {
		s.log.Error("give back a user's turn", "turn", id, "err", err)
	}
}

// turnRunning starts a user's turn (admitted by admitTurn), its budget
// narrowed to what is left of the day as it starts, and returns
// what ends it: its place given back and what of its cost its model calls
// did not record as they were made added to the user's day. Under a daily
// budget the turn is backed by the user's day ledger (ledger.go), which a
// resumed durable turn gets again here on whichever replica runs it. A
// turn handed over to another replica (handed) keeps its place: it goes
// on there.
func (s *Server) turnRunning(t *queuedTurn) func(cost *float64, handed bool) {
	if t.user == "" {
		return func(*float64, bool) {}
	}
	var day *dayLedger
	if lim := s.opts.Limits.DailyBudgetUSD; lim > 0 {
		day = s.newDayLedger(t.user)
		t.opts.Ledger = day
		// What is left of the day now, not when the turn was admitted:
		// a turn queued behind others starts after they spent, and the
		// claude-code runtime keeps to this budget alone.
		left := max(lim-day.Spent(context.WithoutCancel(s.base)), minTurnBudget)
		if t.opts.MaxBudgetUSD == 0 || t.opts.MaxBudgetUSD > left {
			t.opts.MaxBudgetUSD = left
		}
	}
	return func(cost *float64, handed bool) {
		if t.slot && !handed {
			s.endUserTurn(t.id)
		}
		owed := 0.0
		switch {
		case day != nil:
			owed = day.settle(cost)
		case cost != nil:
			owed = *cost
		}
		if owed <= 0 {
			return
		}
		if _, err := s.accounts.AddSpend(context.WithoutCancel(s.base), t.user, today(), owed); err != nil {
			s.log.Error("record spend", "user", t.user, "usd", owed, "err", fmt.Sprint(err))
		}
	}
}

// minTurnBudget is the budget of a turn starting with its user's day spent
// (admitted before the rest went): a zero budget would be none at all.
// The native loop stops before its first call on the day's total; the
// claude-code runtime after one call.
const minTurnBudget = 0.000001

// sweepUserTurns gives back the places of admitted turns the turn queue
// no longer has (a queued turn interrupted before it ran, or one whose
// replica failed to give it back): every replica sweeps, after a grace
// that covers the moment between admitting a prompt and enqueuing it.
func (s *Server) sweepUserTurns(ctx context.Context) {
	ids, err := s.accounts.AdmittedTurns(ctx, time.Now().Add(-userTurnGrace))
	if err != nil || len(ids) == 0 {
		return
	}
	turns, err := s.opts.Turns.Unfinished(ctx)
	if err != nil {
		return
	}
	live := map[string]bool{}
	for _, t := range turns {
		live[t.ID] = true
	}
	for _, id := range ids {
		if !live[id] {
			s.endUserTurn(id)
		}
	}
}

// userTurnGrace: see sweepUserTurns.
const userTurnGrace = 30 * time.Second
