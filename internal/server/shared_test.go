package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/session"
)

// The server's Host (the chat bridges inside `tandem serve`): a session it
// starts is owned by the configured account and seen by the workspace's
// members as any other; its prompt runs on the server's session, the SSE
// stream showing it with its origin, and an unknown owner is refused.
func TestHostSessionsAreTheServers(t *testing.T) {
	tm := newTeam(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("Hello from the host's turn.")}})
	ctx := context.Background()
	if _, err := tm.srv.Host(ctx, server.HostOptions{Owner: "nobody"}); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("an unknown owner: %v, want refused", err)
	}
	h, err := tm.srv.Host(ctx, server.HostOptions{Owner: "ed", Actor: "bridge:test"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan event.Event, 100)
	att, err := h.Attach(ctx, session.OpenRequest{Cwd: tm.ws}, event.SinkFunc(func(e event.Event) { got <- e }))
	if err != nil {
		t.Fatal(err)
	}
	defer att.Detach("other")
	id := att.ID()
	// A viewer of the workspace sees it; someone of no workspace does not.
	if code, data := tm.doAs(tm.vic, "GET", "/api/sessions/"+id, nil); code != 200 {
		t.Errorf("the workspace's viewer reading the chat's session: %d %s", code, data)
	}
	if code, _ := tm.doAs(tm.eve, "GET", "/api/sessions/"+id, nil); code != 404 {
		t.Errorf("a user of no workspace reading the chat's session: %d, want 404", code)
	}
	stream, cancel := tm.streamAs(tm.boss, id)
	defer cancel()
	if queued, err := att.Prompt(ctx, "hi from the chat", session.TurnOptions{Origin: "telegram:1"}); err != nil || queued {
		t.Fatalf("prompt: queued %v, %v", queued, err)
	}
	evs := until(t, stream, isType(event.Done))
	if e := evs[0].Event; e.Subtype != event.SubtypeUserMessage || e.Text != "hi from the chat" || e.Meta["origin"] != "telegram:1" {
		t.Errorf("the stream's first event is %+v, want the chat's prompt with its origin", e)
	}
	var text string
	for e := range got {
		text += e.Text
		if e.Type == event.Done {
			break
		}
	}
	if !strings.Contains(text, "Hello from the host's turn.") {
		t.Errorf("the attachment's events lack the answer: %q", text)
	}
	// The editor owns it: they may delete it, as a session they started.
	if code, data := tm.doAs(tm.ed, "DELETE", "/api/sessions/"+id, nil); code != 204 {
		t.Errorf("the owner deleting the chat's session: %d %s", code, data)
	}
}

// A bridge acting as an owner reaches sessions as that owner's web
// requests would (one rule, decideSession): a chat of an account of no
// workspace neither starts a session in the workspace nor resumes one of
// it by id, nor does a viewer's; and once the owner is disabled, their
// chat's prompts stop too.
func TestHostActsWithinItsOwnersAccess(t *testing.T) {
	tm := newTeam(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	ctx := context.Background()
	sink := event.SinkFunc(func(event.Event) {})
	for _, owner := range []string{"eve", "vic"} {
		h, err := tm.srv.Host(ctx, server.HostOptions{Owner: owner, Actor: "bridge:test"})
		if err != nil {
			t.Fatal(err)
		}
		if att, err := h.Attach(ctx, session.OpenRequest{ID: tm.sid}, sink); err == nil {
			att.Detach("other")
			t.Errorf("a bridge owned by %s resumed session %s of a workspace it may not write in", owner, tm.sid)
		}
		if att, err := h.Attach(ctx, session.OpenRequest{Cwd: tm.ws}, sink); err == nil {
			att.Detach("other")
			t.Errorf("a bridge owned by %s started a session in a workspace it may not write in", owner)
		}
	}
	h, err := tm.srv.Host(ctx, server.HostOptions{Owner: "ed", Actor: "bridge:test"})
	if err != nil {
		t.Fatal(err)
	}
	att, err := h.Attach(ctx, session.OpenRequest{ID: tm.sid}, sink)
	if err != nil {
		t.Fatalf("the editor's bridge resuming the workspace's session: %v", err)
	}
	defer att.Detach("other")
	if code, data := tm.doAs(tm.boss, "PATCH", "/api/users/ed", map[string]any{"disabled": true}); code != 200 {
		t.Fatalf("disable ed: %d %s", code, data)
	}
	if _, err := att.Prompt(ctx, "after ed was disabled", session.TurnOptions{}); err == nil {
		t.Errorf("a disabled owner's chat prompted")
	}
}

// What a bridge lists (/sessions) is what its owner may see, as
// GET /api/sessions lists: a chat acting as an account of no workspace is
// shown none of the workspace's sessions, not even their titles; one
// acting as a member is.
func TestHostListsWhatItsOwnerMaySee(t *testing.T) {
	tm := newTeam(t, scripted.Script{})
	ctx := context.Background()
	ids := func(owner string) []string {
		t.Helper()
		h, err := tm.srv.Host(ctx, server.HostOptions{Owner: owner, Actor: "bridge:test"})
		if err != nil {
			t.Fatal(err)
		}
		ss, err := h.List(ctx, session.ListOptions{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	if got := ids("eve"); len(got) != 0 {
		t.Errorf("a bridge owned by eve (no workspace) lists %v", got)
	}
	if got := ids("vic"); len(got) != 1 || got[0] != tm.sid {
		t.Errorf("a bridge owned by vic (a viewer) lists %v, want [%s]", got, tm.sid)
	}
	if got := ids(""); len(got) != 1 {
		t.Errorf("a bridge with no owner lists %v, want every session, as the server token", got)
	}
}
