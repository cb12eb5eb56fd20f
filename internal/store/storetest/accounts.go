package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

func testUsersAndTokens(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	ann, err := s.CreateUser(ctx, store.User{Name: "ann", Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	if ann.ID == "" || ann.CreatedAt.IsZero() || !ann.Admin || ann.Disabled {
		t.Errorf("created %+v", ann)
	}
	if _, err := s.CreateUser(ctx, store.User{Name: "ann"}); !errors.Is(err, store.ErrExists) {
		t.Errorf("a second ann: %v, want ErrExists", err)
	}
	if _, err := s.CreateUser(ctx, store.User{Name: "bad name"}); err == nil {
		t.Error("a name with a space was accepted")
	}
	bob, err := s.CreateUser(ctx, store.User{Name: "bob@example.com", Email: "bob@example.com", Subject: "https://idp sub-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, store.User{Name: "bob2", Subject: "https://idp sub-1"}); !errors.Is(err, store.ErrExists) {
		t.Errorf("a second user of one subject: %v, want ErrExists", err)
	}
	// Two token-only users (no subject) may exist side by side.
	if _, err := s.CreateUser(ctx, store.User{Name: "cy"}); err != nil {
		t.Errorf("a second user without subject: %v", err)
	}
	for _, key := range []string{ann.ID, "ann"} {
		got, err := s.GetUser(ctx, key)
		if err != nil || got.ID != ann.ID || got.Name != "ann" || !got.Admin {
			t.Errorf("GetUser(%s) = %+v, %v", key, got, err)
		}
	}
	if _, err := s.GetUser(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetUser(nobody): %v, want ErrNotFound", err)
	}
	if got, err := s.UserBySubject(ctx, "https://idp sub-1"); err != nil || got.ID != bob.ID || got.Email != "bob@example.com" {
		t.Errorf("UserBySubject = %+v, %v", got, err)
	}
	if _, err := s.UserBySubject(ctx, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UserBySubject(\"\"): %v, want ErrNotFound", err)
	}
	list, err := s.ListUsers(ctx)
	if err != nil || len(list) != 3 || list[0].Name != "ann" || list[1].Name != "bob@example.com" || list[2].Name != "cy" {
		t.Errorf("ListUsers = %+v, %v", list, err)
	}

	yes, no := true, false
	if err := s.UpdateUser(ctx, bob.ID, store.UserUpdate{Disabled: &yes}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateUser(ctx, ann.ID, store.UserUpdate{Admin: &no}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetUser(ctx, bob.ID); !got.Disabled || got.Admin || got.Email != "bob@example.com" {
		t.Errorf("after disabling bob: %+v", got)
	}
	if got, _ := s.GetUser(ctx, ann.ID); got.Admin || got.Disabled {
		t.Errorf("after taking ann's admin: %+v", got)
	}
	if err := s.UpdateUser(ctx, "usr_missing", store.UserUpdate{Disabled: &yes}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateUser(missing): %v, want ErrNotFound", err)
	}

	if err := s.SetUserToken(ctx, ann.ID, "hash-1"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.UserByTokenHash(ctx, "hash-1"); err != nil || got.ID != ann.ID {
		t.Errorf("UserByTokenHash(hash-1) = %+v, %v", got, err)
	}
	// A rotation: the old hash finds nobody at once.
	if err := s.SetUserToken(ctx, ann.ID, "hash-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UserByTokenHash(ctx, "hash-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the rotated-out hash: %v, want ErrNotFound", err)
	}
	if got, err := s.UserByTokenHash(ctx, "hash-2"); err != nil || got.ID != ann.ID {
		t.Errorf("UserByTokenHash(hash-2) = %+v, %v", got, err)
	}
	if err := s.SetUserToken(ctx, "usr_missing", "hash-3"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetUserToken(missing user): %v, want ErrNotFound", err)
	}
	// A second handle (another process, another replica) sees it all.
	if got, err := db(nil).UserByTokenHash(ctx, "hash-2"); err != nil || got.ID != ann.ID {
		t.Errorf("another handle: %+v, %v", got, err)
	}
}

func testMembersAndOwners(t *testing.T, db DB) {
	s := db(nil)
	ctx := context.Background()
	ws, err := s.AddWorkspace(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ann, err := s.CreateUser(ctx, store.User{Name: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := s.CreateUser(ctx, store.User{Name: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMember(ctx, store.Member{WorkspaceID: ws.ID, UserID: ann.ID, Role: store.RoleOwner}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMember(ctx, store.Member{WorkspaceID: ws.ID, UserID: bob.ID, Role: store.RoleEditor}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMember(ctx, store.Member{WorkspaceID: ws.ID, UserID: bob.ID, Role: store.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMember(ctx, store.Member{WorkspaceID: ws.ID, UserID: bob.ID, Role: "god"}); err == nil {
		t.Error("role god was accepted")
	}
	for _, m := range []store.Member{{WorkspaceID: "wsp_missing", UserID: ann.ID, Role: store.RoleViewer}, {WorkspaceID: ws.ID, UserID: "usr_missing", Role: store.RoleViewer}} {
		if err := s.SetMember(ctx, m); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SetMember(%+v): %v, want ErrNotFound", m, err)
		}
	}
	members, err := s.Members(ctx, ws.ID)
	want := map[string]string{ann.ID: store.RoleOwner, bob.ID: store.RoleViewer}
	if err != nil || len(members) != 2 {
		t.Fatalf("Members = %+v, %v", members, err)
	}
	for _, m := range members {
		if want[m.UserID] != m.Role || m.WorkspaceID != ws.ID {
			t.Errorf("member %+v, want role %q", m, want[m.UserID])
		}
	}
	if got, err := s.Memberships(ctx, bob.ID); err != nil || len(got) != 1 || got[0].Role != store.RoleViewer {
		t.Errorf("Memberships(bob) = %+v, %v", got, err)
	}
	if err := s.RemoveMember(ctx, ws.ID, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveMember(ctx, ws.ID, bob.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("removing twice: %v, want ErrNotFound", err)
	}
	if got, _ := s.Memberships(ctx, bob.ID); len(got) != 0 {
		t.Errorf("bob still a member: %+v", got)
	}

	sess := newSession(t, s, ws.Path)
	if owner, err := s.SessionOwner(ctx, sess.ID); err != nil || owner != "" {
		t.Errorf("a new session's owner = %q, %v; want none", owner, err)
	}
	if err := s.SetSessionOwner(ctx, sess.ID, ann.ID); err != nil {
		t.Fatal(err)
	}
	if owner, err := db(nil).SessionOwner(ctx, sess.ID); err != nil || owner != ann.ID {
		t.Errorf("owner = %q, %v; want ann", owner, err)
	}
	if err := s.SetSessionOwner(ctx, "ses_missing", ann.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("owner of a missing session: %v, want ErrNotFound", err)
	}
	// Deleting the session or the workspace takes their rows with them.
	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if owner, err := s.SessionOwner(ctx, sess.ID); err != nil || owner != "" {
		t.Errorf("a deleted session's owner = %q, %v", owner, err)
	}
	if err := s.DeleteWorkspace(ctx, ws.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Memberships(ctx, ann.ID); len(got) != 0 {
		t.Errorf("memberships of a deleted workspace remain: %+v", got)
	}
}

func testAuditAndSpend(t *testing.T, db DB) {
	clock := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	s := db(func() time.Time { clock = clock.Add(time.Second); return clock })
	ctx := context.Background()
	ann, err := s.CreateUser(ctx, store.User{Name: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []store.AuditEntry{
		{Actor: ann.ID, Action: "session.create", Target: "ses_1"},
		{Actor: "usr_other", Action: "prompt", Target: "ses_2"},
		{Actor: ann.ID, Action: "permission.answer", Target: "ses_1", Detail: "allow"},
	} {
		got, err := s.AddAudit(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID == "" || got.At.IsZero() {
			t.Errorf("AddAudit returned %+v", got)
		}
	}
	all, err := s.ListAudit(ctx, store.AuditQuery{})
	if err != nil || len(all) != 3 || all[0].Action != "permission.answer" || all[0].Detail != "allow" || all[2].Action != "session.create" {
		t.Errorf("ListAudit = %+v, %v (want newest first)", all, err)
	}
	mine, err := s.ListAudit(ctx, store.AuditQuery{Actor: ann.ID, Limit: 1})
	if err != nil || len(mine) != 1 || mine[0].Action != "permission.answer" {
		t.Errorf("ListAudit(ann, 1) = %+v, %v", mine, err)
	}

	if got, err := s.Spend(ctx, ann.ID, "2026-12-02"); err != nil || got != 0 {
		t.Errorf("Spend before any = %v, %v", got, err)
	}
	if total, err := s.AddSpend(ctx, ann.ID, "2026-12-02", 0.25); err != nil || total != 0.25 {
		t.Errorf("AddSpend = %v, %v", total, err)
	}
	if total, err := db(nil).AddSpend(ctx, ann.ID, "2026-12-02", 0.5); err != nil || total != 0.75 {
		t.Errorf("AddSpend again = %v, %v", total, err)
	}
	if got, err := s.Spend(ctx, ann.ID, "2026-12-03"); err != nil || got != 0 {
		t.Errorf("another day's spend = %v, %v", got, err)
	}
	if _, err := s.AddSpend(ctx, "usr_missing", "2026-12-02", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AddSpend(missing user): %v, want ErrNotFound", err)
	}
}
