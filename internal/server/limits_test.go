package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
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
