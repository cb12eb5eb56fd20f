package server_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// Two replicas on one PostgreSQL, serve.user_daily_budget_usd $7: a
// user's turns prompted one on each replica, at once, share the day's
// budget as on one replica (TestDailyBudgetHoldsForTurnsAtOnce): each
// call is recorded in the shared store as it is made and read by the
// other turn before its next call, whichever replica runs it.
func TestReplicasShareUserDailyBudget(t *testing.T) {
	a, b, ann := budgetReplicas(t, 7)
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

// Two replicas on one PostgreSQL, a $5 day: a user's turn is handed over
// when the replica running it drains, after its first $3 call, and the
// day is spent meanwhile by another of the user's turns. The replica that
// goes on with the turn backs it by the user's day again (the user comes
// with the queued turn), so it stops before its next call, though its
// own budget (what was left of the day when it was admitted) would let
// it go on.
func TestReplicasResumedTurnKeepsTheDailyBudget(t *testing.T) {
	a, b, ann := budgetReplicas(t, 5)
	var s struct{ ID string }
	if code, data := a.doAs(ann.Token, "POST", "/api/sessions", map[string]string{"cwd": a.ws}); code != 201 {
		t.Fatalf("create: %d %s", code, data)
	} else {
		json.Unmarshal(data, &s)
	}
	ch, stop := a.streamWith(ann.Token, s.ID, "")
	if code, data := a.doAs(ann.Token, "POST", "/api/sessions/"+s.ID+"/messages", map[string]string{"text": "go"}); code != 202 {
		t.Fatalf("prompt: %d %s", code, data)
	}
	evs := until(t, ch, isType(event.PermissionRequest)) // its first $3 spent
	stop()
	last := evs[len(evs)-1].ID

	// Another of ann's turns spends the rest of the day.
	spent := daySpend(t, a, ann.Token)
	if math.Abs(spent-3) > 0.01 {
		t.Fatalf("the day after the first call: $%v, want about $3 (recorded as it was made)", spent)
	}
	var me struct{ User struct{ ID string } }
	_, data := a.doAs(ann.Token, "GET", "/api/me", nil)
	json.Unmarshal(data, &me)
	if _, err := a.stack.App.Store.AddSpend(context.Background(), me.User.ID, time.Now().UTC().Format(time.DateOnly), 5-spent); err != nil {
		t.Fatal(err)
	}

	// The replica running the turn drains: the other goes on with it.
	runner, other := a, b
	ids, err := a.turns.Pending(context.Background(), s.ID)
	if err != nil || len(ids) != 1 {
		t.Fatalf("the session's pending turns: %v, %v; want one", ids, err)
	}
	if st, ok, err := a.turns.Begun(context.Background(), ids[0]); err != nil || !ok {
		t.Fatalf("who began the turn: %v, %v", ok, err)
	} else if st.Replica == b.srv.ReplicaID() {
		runner, other = b, a
	}
	ch, stop = other.streamWith(ann.Token, s.ID, last)
	defer stop()
	runner.stop()
	until(t, ch, func(ev event.Event) bool { return ev.Type == event.Status && ev.Subtype == server.SubtypeTurnMoved })
	var res event.Event
	for res.Type != event.Result {
		evs := until(t, ch, func(ev event.Event) bool { return ev.Type == event.Result || ev.Type == event.PermissionRequest })
		res = evs[len(evs)-1].Event
		if res.Type == event.PermissionRequest {
			if code, data := other.doAs(ann.Token, "POST", "/api/sessions/"+s.ID+"/permissions/"+res.RequestID, map[string]string{"decision": "allow_once"}); code != 200 {
				t.Fatalf("answer: %d %s", code, data)
			}
		}
	}
	if res.Subtype != event.SubtypeMaxBudget || !strings.Contains(res.Error, "of today's $5.00 budget") {
		t.Fatalf("the resumed turn: %s %q, want it stopped by the day's budget", res.Subtype, res.Error)
	}
}

// budgetReplicas are two replicas on one PostgreSQL under a daily budget
// of day US dollars per user (Write asks), and ann, an admin on them.
func budgetReplicas(t *testing.T, day float64) (a, b *env, ann struct{ Token string }) {
	t.Helper()
	dbURL := pg.Database(t)
	opt := func(o *server.Options, c *servertest.Config) {
		c.AskTools = []string{"Write"}
		o.Limits = server.Limits{DailyBudgetUSD: day}
	}
	a = newReplica(t, dbURL, budgetScript(), "", opt)
	b = newReplica(t, dbURL, budgetScript(), a.ws, opt)
	code, data := a.do("POST", "/api/users", map[string]any{"name": "ann", "admin": true})
	if code != 201 {
		t.Fatalf("add a user: %d %s", code, data)
	}
	json.Unmarshal(data, &ann)
	return a, b, ann
}
