package server_test

import (
	"context"
	"encoding/json"
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
