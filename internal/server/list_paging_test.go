package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/store"
)

// TestListPagesCountVisibleSessions: a user who sees only some sessions
// gets full pages of theirs, in order, none skipped, however many newer
// sessions of other workspaces lie between them (more than the server
// reads from the store at a time).
func TestListPagesCountVisibleSessions(t *testing.T) {
	tm := newTeam(t, scripted.Script{})
	ctx := context.Background()
	other := filepath.Join(tm.dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, data := tm.doAs(tm.boss, "POST", "/api/workspaces", map[string]string{"path": other}); code != 201 {
		t.Fatalf("add workspace: %d %s", code, data)
	}
	st := tm.stack.Manager.Store()
	mine := []string{tm.sid}
	for i := range 650 {
		cwd := other
		if i%150 == 75 {
			cwd = tm.ws
		}
		s, err := st.CreateSession(ctx, store.Session{Cwd: cwd, Model: "m", Runtime: "native"})
		if err != nil {
			t.Fatal(err)
		}
		if cwd == tm.ws {
			mine = append(mine, s.ID)
		}
	}
	slices.Reverse(mine) // newest first, as listed
	list := func(tok, query string) []string {
		t.Helper()
		code, data := tm.doAs(tok, "GET", "/api/sessions"+query, nil)
		if code != 200 {
			t.Fatalf("list %s: %d %s", query, code, data)
		}
		var out struct{ Sessions []struct{ ID string } }
		json.Unmarshal(data, &out)
		ids := []string{}
		for _, s := range out.Sessions {
			ids = append(ids, s.ID)
		}
		return ids
	}
	if got := list(tm.vic, ""); !slices.Equal(got, mine) {
		t.Fatalf("vic's whole list: %v, want %v", got, mine)
	}
	var paged []string
	for off := 0; off < len(mine)+2; off += 2 {
		page := list(tm.vic, fmt.Sprintf("?limit=2&offset=%d", off))
		if want := min(2, max(len(mine)-off, 0)); len(page) != want {
			t.Errorf("vic's page at offset %d has %d sessions, want %d", off, len(page), want)
		}
		paged = append(paged, page...)
	}
	if !slices.Equal(paged, mine) {
		t.Errorf("vic's pages: %v, want %v", paged, mine)
	}
	if got := list(tm.eve, "?limit=5"); len(got) != 0 {
		t.Errorf("eve, a member of nothing, lists %v", got)
	}
	// An admin's pages are the store's.
	if got := list(tm.boss, "?limit=3"); len(got) != 3 {
		t.Errorf("the admin's page: %d sessions, want 3", len(got))
	}
}
