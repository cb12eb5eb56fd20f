package storetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/store"
)

func testWorkspaces(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	nested := filepath.Join(proj, "sub")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{nested, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link inside proj that leads outside it.
	if err := os.Symlink(outside, filepath.Join(proj, "escape")); err != nil {
		t.Fatal(err)
	}

	w, err := s.AddWorkspace(ctx, proj+"/")
	if err != nil {
		t.Fatal(err)
	}
	if w.Path != proj || w.Name != "proj" || w.ID == "" || w.CreatedAt.IsZero() {
		t.Errorf("workspace = %+v", w)
	}
	again, err := s.AddWorkspace(ctx, proj)
	if err != nil || again.ID != w.ID {
		t.Errorf("re-adding returned %+v, %v; want the existing workspace", again, err)
	}
	inner, err := s.AddWorkspace(ctx, nested)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"relative/path", filepath.Join(root, "missing"), file} {
		if _, err := s.AddWorkspace(ctx, bad); err == nil {
			t.Errorf("AddWorkspace(%q) succeeded", bad)
		}
	}
	list, err := s.ListWorkspaces(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("list = %v, %v", list, err)
	}

	tests := []struct {
		path string
		want string // workspace id, "" for none
	}{
		{proj, w.ID},
		{filepath.Join(proj, "main.go"), w.ID},
		{filepath.Join(proj, "new", "file.go"), w.ID}, // not created yet
		{nested, inner.ID},                            // deepest wins
		{filepath.Join(nested, "x"), inner.ID},
		{proj + "x", ""}, // a sibling sharing the name's prefix
		{outside, ""},
		{filepath.Join(proj, "escape", "secret"), ""}, // through the symlink
		{filepath.Join(proj, "..", "outside"), ""},
		{root, ""},
	}
	for _, tt := range tests {
		got, ok, err := s.WorkspaceForPath(ctx, tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if (tt.want == "") == ok || (ok && got.ID != tt.want) {
			t.Errorf("WorkspaceForPath(%s) = %s, %v; want %q", tt.path, got.ID, ok, tt.want)
		}
	}
	if _, _, err := s.WorkspaceForPath(ctx, "rel"); err == nil {
		t.Error("relative path accepted")
	}

	if err := s.DeleteWorkspace(ctx, inner.ID); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := s.WorkspaceForPath(ctx, nested); !ok || got.ID != w.ID {
		t.Errorf("after delete, %s in %v %v", nested, got.ID, ok)
	}
	if err := s.DeleteWorkspace(ctx, inner.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete err = %v", err)
	}
}

func testGrants(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	g1, err := s.AddGrant(ctx, store.Grant{Scope: "/work/proj/", Tool: "bash", Pattern: "git status:*", Action: "allow"})
	if err != nil {
		t.Fatal(err)
	}
	if g1.ID == "" || g1.Scope != "/work/proj" || g1.CreatedAt.IsZero() {
		t.Errorf("grant = %+v", g1)
	}
	dup, err := s.AddGrant(ctx, store.Grant{Scope: "/work/proj", Tool: "bash", Pattern: "git status:*", Action: "allow"})
	if err != nil || dup.ID != g1.ID {
		t.Errorf("duplicate grant = %+v, %v; want the stored one", dup, err)
	}
	g2, _ := s.AddGrant(ctx, store.Grant{Scope: store.UserScope, Tool: "read", Action: "allow"})
	g3, _ := s.AddGrant(ctx, store.Grant{Scope: "/work/proj", Tool: "write", Action: "deny"})
	for _, bad := range []store.Grant{{Tool: "x", Action: "allow"}, {Scope: "user", Action: "allow"}, {Scope: "user", Tool: "x"}} {
		if _, err := s.AddGrant(ctx, bad); err == nil {
			t.Errorf("AddGrant(%+v) succeeded", bad)
		}
	}
	proj, err := s.ListGrants(ctx, "/work/proj")
	if err != nil || len(proj) != 2 || proj[0].ID != g1.ID || proj[1].ID != g3.ID {
		t.Errorf("project grants = %+v, %v", proj, err)
	}
	if proj[0] != g1 {
		t.Errorf("round trip: %+v != %+v", proj[0], g1)
	}
	user, _ := s.ListGrants(ctx, store.UserScope)
	if len(user) != 1 || user[0].ID != g2.ID {
		t.Errorf("user grants = %+v", user)
	}
	all, _ := s.ListGrants(ctx, "")
	if len(all) != 3 {
		t.Errorf("all grants = %d", len(all))
	}
	if err := s.DeleteGrant(ctx, g1.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteGrant(ctx, g1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete err = %v", err)
	}
	if proj, _ := s.ListGrants(ctx, "/work/proj"); len(proj) != 1 {
		t.Errorf("after delete: %+v", proj)
	}
}
