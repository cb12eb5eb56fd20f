package app

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// Who answers a session's permission questions and the flag rules it
// judges by are the opener's choice, per session: two sessions of one
// process keep their own (they were process-wide: App.FlagRules and the
// App's asker applied to every session it opened).
func TestSessionsKeepTheirOwnAskerAndFlagRules(t *testing.T) {
	a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"})
	ctx := context.Background()
	var mu sync.Mutex
	var asked []string
	askerFor := func(name, decision string) permission.Asker {
		return permission.AskerFunc(func(context.Context, permission.Question) (permission.Answer, error) {
			mu.Lock()
			asked = append(asked, name)
			mu.Unlock()
			return permission.Answer{Decision: decision}, nil
		})
	}
	deny, err := permission.ParseToolFlags([]string{"Bash(touch:*)"}, permission.ActionDeny)
	if err != nil {
		t.Fatal(err)
	}
	open := func(req session.OpenRequest) *session.Live {
		t.Helper()
		req.Cwd, req.Mode = work, "normal"
		l, err := a.Manager.Open(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.Close)
		return l
	}
	strict := open(session.OpenRequest{FlagRules: deny, Asker: askerFor("strict", permission.AllowOnce)})
	lenient := open(session.OpenRequest{Asker: askerFor("lenient", permission.AllowOnce)})
	nobody := open(session.OpenRequest{})

	touch := permission.Request{Tool: "Bash", Input: json.RawMessage(`{"command":"touch x"}`)}
	if got := strict.Explain(touch).Action; got != permission.ActionDeny {
		t.Errorf("the session opened with --disallowedTools Bash(touch:*) judges touch as %s, want deny", got)
	}
	if got := lenient.Explain(touch).Action; got != permission.ActionAsk {
		t.Errorf("a session opened without flag rules judges touch as %s, want ask (another session's rules leaked)", got)
	}
	check := func(l *session.Live) permission.Decision {
		t.Helper()
		r := touch
		r.SessionID, r.ToolUseID, r.Cwd = l.ID(), "toolu_1", work
		d, err := l.Checker().Check(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := check(strict); d.Behavior != permission.Deny {
		t.Errorf("strict session: %+v, want the flag rule's deny", d)
	}
	if d := check(lenient); d.Behavior != permission.Allow {
		t.Errorf("lenient session: %+v, want its own asker's allow", d)
	}
	if d := check(nobody); d.Behavior != permission.Deny {
		t.Errorf("a session opened without an asker: %+v, want an explained denial", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(asked, []string{"lenient"}) {
		t.Errorf("askers asked %q, want only the lenient session's own", asked)
	}
}
