package server

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Limits are what one user may use of a team's server (config serve:
// user_daily_budget_usd, user_max_concurrent_turns); zero: no limit.
type Limits struct {
	DailyBudgetUSD float64
	MaxTurns       int
}

// userTurns counts each user's running turns.
type userTurns struct {
	mu      sync.Mutex
	running map[string]int
}

func (u *userTurns) count(user string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.running[user]
}

func (u *userTurns) add(user string, d int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.running == nil {
		u.running = map[string]int{}
	}
	u.running[user] += d
	if u.running[user] <= 0 {
		delete(u.running, user)
	}
}

func today() string { return time.Now().UTC().Format(time.DateOnly) }

// admitTurn checks the caller's limits before a turn is queued and
// narrows the turn's budget to what is left of the day's; the turn
// carries the user so it is counted while it runs and its cost is added
// to the day's spend.
func (s *Server) admitTurn(r *http.Request, t *queuedTurn) *apiError {
	c := callerOf(r)
	if c.user.ID == "" {
		return nil // the server token: no users, no per-user limits
	}
	t.user = c.user.ID
	lim := s.opts.Limits
	if lim.DailyBudgetUSD > 0 {
		spent, err := s.accounts.Spend(r.Context(), c.user.ID, today())
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
	if lim.MaxTurns > 0 && s.turns.count(c.user.ID) >= lim.MaxTurns {
		return errf(http.StatusTooManyRequests, "user_turn_limit",
			"you have %d turns running, the most this server allows one user (serve.user_max_concurrent_turns): wait for one to end or interrupt it", lim.MaxTurns)
	}
	// Counted from here, so a second prompt sent before the first turn
	// starts is counted against it; turnRunning's end (or turnRefused)
	// gives it back. A queued turn a deletion drops stays counted until
	// the server restarts.
	s.turns.add(c.user.ID, 1)
	return nil
}

// turnRefused gives back the count of a turn admitted but not queued.
func (s *Server) turnRefused(user string) {
	if user != "" {
		s.turns.add(user, -1)
	}
}

// turnRunning returns what ends a user's turn (admitted by admitTurn):
// the count given back and its cost added to the user's day.
func (s *Server) turnRunning(user string) func(cost *float64) {
	if user == "" {
		return func(*float64) {}
	}
	return func(cost *float64) {
		s.turns.add(user, -1)
		if cost == nil || *cost <= 0 {
			return
		}
		if _, err := s.accounts.AddSpend(context.WithoutCancel(s.base), user, today(), *cost); err != nil {
			s.log.Error("record spend", "user", user, "err", fmt.Sprint(err))
		}
	}
}
