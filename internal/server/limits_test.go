package server_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/session"
)

// TestUserLimits: a user past their concurrent turns, or past the day's
// budget, is refused a prompt with an error naming the setting; another
// user is not held back by them.
func TestUserLimits(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{slowText(100), slowText(100), slowText(100)}}
	tm := newTeam(t, script, func(o *server.Options, _ *servertest.Config) {
		o.Limits = server.Limits{MaxTurns: 1, DailyBudgetUSD: 5}
	})
	var a, b struct{ ID string }
	for _, s := range []*struct{ ID string }{&a, &b} {
		code, data := tm.doAs(tm.ed, "POST", "/api/sessions", map[string]string{"cwd": tm.ws})
		if code != 201 {
			t.Fatalf("create: %d %s", code, data)
		}
		json.Unmarshal(data, s)
	}
	if code, data := tm.doAs(tm.ed, "POST", "/api/sessions/"+a.ID+"/messages", map[string]string{"text": "one"}); code != 202 {
		t.Fatalf("first prompt: %d %s", code, data)
	}
	code, data := tm.doAs(tm.ed, "POST", "/api/sessions/"+b.ID+"/messages", map[string]string{"text": "two"})
	if code != 429 || !strings.Contains(string(data), "user_turn_limit") || !strings.Contains(string(data), "user_max_concurrent_turns") {
		t.Errorf("a second turn at once: %d %s", code, data)
	}
	// The boss is another user: not held back by ed's turn.
	if code, data := tm.doAs(tm.boss, "POST", "/api/sessions/"+b.ID+"/messages", map[string]string{"text": "boss"}); code != 202 {
		t.Errorf("another user's prompt: %d %s", code, data)
	}

	// Past the day's budget: refused, naming the setting.
	var me struct{ User struct{ ID string } }
	_, data = tm.doAs(tm.ed, "GET", "/api/me", nil)
	json.Unmarshal(data, &me)
	if _, err := tm.stack.App.Store.AddSpend(context.Background(), me.User.ID, time.Now().UTC().Format(time.DateOnly), 5); err != nil {
		t.Fatal(err)
	}
	code, data = tm.doAs(tm.ed, "POST", "/api/sessions/"+a.ID+"/messages", map[string]string{"text": "three"})
	if code != 429 || !strings.Contains(string(data), "user_daily_budget_usd") {
		t.Errorf("past the budget: %d %s", code, data)
	}
}

// TestHostTurnsCountAgainstTheOwner: a chat bridge inside `tandem serve`
// acts as its configured owner, so the owner's turn limit holds across
// the web UI and the chat (a second turn at once is refused in either),
// and a bridge with no owner is held back by no one's limit.
func TestHostTurnsCountAgainstTheOwner(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{slowText(100), slowText(100), slowText(100)}}
	tm := newTeam(t, script, func(o *server.Options, _ *servertest.Config) {
		o.Limits = server.Limits{MaxTurns: 1}
	})
	ctx := context.Background()
	var web struct{ ID string }
	code, data := tm.doAs(tm.ed, "POST", "/api/sessions", map[string]string{"cwd": tm.ws})
	if code != 201 {
		t.Fatalf("create: %d %s", code, data)
	}
	json.Unmarshal(data, &web)
	if code, data := tm.doAs(tm.ed, "POST", "/api/sessions/"+web.ID+"/messages", map[string]string{"text": "web"}); code != 202 {
		t.Fatalf("ed's web prompt: %d %s", code, data)
	}
	h, err := tm.srv.Host(ctx, server.HostOptions{Owner: "ed", Actor: "bridge:test"})
	if err != nil {
		t.Fatal(err)
	}
	att, err := h.Attach(ctx, session.OpenRequest{Cwd: tm.ws}, event.SinkFunc(func(event.Event) {}))
	if err != nil {
		t.Fatal(err)
	}
	defer att.Detach("other")
	if _, err := att.Prompt(ctx, "from the chat", session.TurnOptions{}); err == nil || !strings.Contains(err.Error(), "user_max_concurrent_turns") {
		t.Errorf("the owner's chat prompt while their web turn runs: %v, want the turn limit named", err)
	}
	anon, err := tm.srv.Host(ctx, server.HostOptions{Actor: "bridge:other"})
	if err != nil {
		t.Fatal(err)
	}
	att2, err := anon.Attach(ctx, session.OpenRequest{Cwd: tm.ws}, event.SinkFunc(func(event.Event) {}))
	if err != nil {
		t.Fatal(err)
	}
	defer att2.Detach("other")
	if _, err := att2.Prompt(ctx, "no owner", session.TurnOptions{}); err != nil {
		t.Errorf("a bridge with no owner: %v, want no limit applied", err)
	}
}

// budgetScript is a turn of two model calls of $3 each (a million input
// tokens at claude-sonnet-4-5's price): a Write that asks first, so the
// test holds each turn between its calls, then an answer.
func budgetScript() scripted.Script {
	million := scripted.Usage{InputTokens: 1_000_000}
	return scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "x\n"})).WithUsage(million),
		scripted.TextStep("Wrote it.").WithUsage(million),
	}}
}

// twoTurnsAtOnce runs a turn of budgetScript's in each of s1 (prompted on
// a) and s2 (prompted on b), both begun before either goes on: each has
// spent its first $3 when s1's is let go and spends its second; then s2's
// is let go. It returns the two results.
func twoTurnsAtOnce(t *testing.T, a, b *env, tok, s1, s2 string) (first, second event.Event) {
	t.Helper()
	ch1, stop1 := a.streamWith(tok, s1, "")
	defer stop1()
	ch2, stop2 := b.streamWith(tok, s2, "")
	defer stop2()
	asked := func(e *env, ch <-chan sseEvent, id, text string) string {
		t.Helper()
		if code, data := e.doAs(tok, "POST", "/api/sessions/"+id+"/messages", map[string]string{"text": text}); code != 202 {
			t.Fatalf("prompt %q: %d %s", text, code, data)
		}
		evs := until(t, ch, isType(event.PermissionRequest))
		return evs[len(evs)-1].Event.RequestID
	}
	allow := func(e *env, ch <-chan sseEvent, id, req string) event.Event {
		t.Helper()
		if code, data := e.doAs(tok, "POST", "/api/sessions/"+id+"/permissions/"+req, map[string]string{"decision": "allow_once"}); code != 200 {
			t.Fatalf("answer: %d %s", code, data)
		}
		evs := until(t, ch, isType(event.Result))
		return evs[len(evs)-1].Event
	}
	r1 := asked(a, ch1, s1, "one")
	r2 := asked(b, ch2, s2, "two")
	return allow(a, ch1, s1, r1), allow(b, ch2, s2, r2)
}

// checkDailyBudgetHeld: of two turns at once under a $7 day, which either
// alone (about $6) stays under, the first ends and the second stops before
// its second call with the day's budget named; the day's recorded spend is
// what the turns cost (about $9: at most the budget plus one call per
// turn), nothing counted twice.
func checkDailyBudgetHeld(t *testing.T, first, second event.Event, spent float64) {
	t.Helper()
	if first.Subtype != event.SubtypeSuccess || first.NumTurns != 2 {
		t.Errorf("the first turn: %s %q after %d calls, want a success after 2", first.Subtype, first.Error, first.NumTurns)
	}
	if second.Subtype != event.SubtypeMaxBudget || !strings.Contains(second.Error, "of today's $7.00 budget") || second.NumTurns != 1 {
		t.Errorf("the second turn: %s %q after %d calls, want it stopped by the day's budget before its second call", second.Subtype, second.Error, second.NumTurns)
	}
	if first.CostUSD == nil || second.CostUSD == nil {
		t.Fatalf("costs %v %v, want both known", first.CostUSD, second.CostUSD)
	}
	if want := *first.CostUSD + *second.CostUSD; math.Abs(spent-want) > 1e-9 || spent > 7+2*3.01 {
		t.Errorf("the day's recorded spend is $%v, want the turns' $%v (each call once), at most the budget plus a call per turn", spent, want)
	}
}

// TestDailyBudgetHoldsForTurnsAtOnce: serve.user_daily_budget_usd holds
// for turns of one user running side by side, not only at admission (both
// were admitted with the whole day left).
func TestDailyBudgetHoldsForTurnsAtOnce(t *testing.T) {
	tm := newTeam(t, budgetScript(), func(o *server.Options, c *servertest.Config) {
		c.AskTools = []string{"Write"}
		o.Limits = server.Limits{DailyBudgetUSD: 7}
	})
	var s1, s2 struct{ ID string }
	for _, s := range []*struct{ ID string }{&s1, &s2} {
		code, data := tm.doAs(tm.ed, "POST", "/api/sessions", map[string]string{"cwd": tm.ws})
		if code != 201 {
			t.Fatalf("create: %d %s", code, data)
		}
		json.Unmarshal(data, s)
	}
	first, second := twoTurnsAtOnce(t, tm.env, tm.env, tm.ed, s1.ID, s2.ID)
	waitIdleAs(t, tm.env, tm.ed, s1.ID)
	waitIdleAs(t, tm.env, tm.ed, s2.ID)
	checkDailyBudgetHeld(t, first, second, daySpend(t, tm.env, tm.ed))
}

// TestDailySpendIsTheTurnsCost: a turn under a daily budget records each
// call as it is made; its end adds nothing more, so the day's spend is
// the turn's cost, counted once.
func TestDailySpendIsTheTurnsCost(t *testing.T) {
	tm := newTeam(t, budgetScript(), func(o *server.Options, _ *servertest.Config) {
		o.Limits = server.Limits{DailyBudgetUSD: 100}
	})
	var s struct{ ID string }
	code, data := tm.doAs(tm.ed, "POST", "/api/sessions", map[string]string{"cwd": tm.ws})
	if code != 201 {
		t.Fatalf("create: %d %s", code, data)
	}
	json.Unmarshal(data, &s)
	ch, stop := tm.streamWith(tm.ed, s.ID, "")
	defer stop()
	if code, data := tm.doAs(tm.ed, "POST", "/api/sessions/"+s.ID+"/messages", map[string]string{"text": "go"}); code != 202 {
		t.Fatalf("prompt: %d %s", code, data)
	}
	evs := until(t, ch, isType(event.Result))
	res := evs[len(evs)-1].Event
	if res.Subtype != event.SubtypeSuccess || res.CostUSD == nil || *res.CostUSD < 6 {
		t.Fatalf("result %s %q cost %v, want a success costing $6 or so", res.Subtype, res.Error, res.CostUSD)
	}
	waitIdleAs(t, tm.env, tm.ed, s.ID)
	if spent := daySpend(t, tm.env, tm.ed); math.Abs(spent-*res.CostUSD) > 1e-9 {
		t.Errorf("the day's spend is $%v, want the turn's $%v", spent, *res.CostUSD)
	}
}

// waitIdleAs waits, as tok, for session id's turn to be over on e: what ends a turn
// (its place given back, the rest of its cost added to the day) runs after
// its result event.
func waitIdleAs(t *testing.T, e *env, tok, id string) {
	t.Helper()
	waitUntil(t, "the turn to end", func() bool {
		code, data := e.doAs(tok, "GET", "/api/sessions/"+id, nil)
		return code == 200 && strings.Contains(string(data), `"status":"idle"`)
	})
}

// daySpend is what tok's user has spent today, as the store of e has it.
func daySpend(t *testing.T, e *env, tok string) float64 {
	t.Helper()
	var me struct{ User struct{ ID string } }
	code, data := e.doAs(tok, "GET", "/api/me", nil)
	if code != 200 {
		t.Fatalf("me: %d %s", code, data)
	}
	json.Unmarshal(data, &me)
	spent, err := e.stack.App.Store.Spend(context.Background(), me.User.ID, time.Now().UTC().Format(time.DateOnly))
	if err != nil {
		t.Fatal(err)
	}
	return spent
}
