package server_test

import (
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// Two replicas on one PostgreSQL, serve.user_daily_budget_usd $7: a
// user's turns prompted one on each replica, at once, share the day's
// budget as on one replica (TestDailyBudgetHoldsForTurnsAtOnce): each
// call is recorded in the shared store as it is made and read by the
// other turn before its next call, whichever replica runs it.
func TestReplicasShareUserDailyBudget(t *testing.T) {
	dbURL := pg.Database(t)
	opt := func(o *server.Options, c *servertest.Config) {
		c.AskTools = []string{"Write"}
		o.Limits = server.Limits{DailyBudgetUSD: 7}
	}
	a := newReplica(t, dbURL, budgetScript(), "", opt)
	b := newReplica(t, dbURL, budgetScript(), a.ws, opt)
	code, data := a.do("POST", "/api/users", map[string]any{"name": "ann", "admin": true})
	if code != 201 {
		t.Fatalf("add a user: %d %s", code, data)
	}
	var ann struct{ Token string }
	json.Unmarshal(data, &ann)
	var s1, s2 struct{ ID string }
	for _, s := range []struct {
		r  *env
		to *struct{ ID string }
	}{{a, &s1}, {b, &s2}} {
		code, data := s.r.doAs(ann.Token, "POST", "/api/sessions", map[string]string{"cwd": a.ws})
		if code != 201 {
			t.Fatalf("create: %d %s", code, data)
		}
		json.Unmarshal(data, s.to)
	}
	first, second := twoTurnsAtOnce(t, a, b, ann.Token, s1.ID, s2.ID)
	waitIdleAs(t, a, ann.Token, s1.ID)
	waitIdleAs(t, b, ann.Token, s2.ID)
	checkDailyBudgetHeld(t, first, second, daySpend(t, b, ann.Token))
}
