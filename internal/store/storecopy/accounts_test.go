package storecopy

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/postgres"
	"github.com/tandem-agent/tandem/internal/store/sqlite"
)

// TestCopyAccounts: a team's accounts arrive in PostgreSQL: users as they
// were (their tokens still work there, only hashes having moved),
// workspace roles (on PostgreSQL's own id for the same folder), session
// owners, the audit log and spend; a user whose name PostgreSQL gives to
// someone else is not copied, nor their token, and is named; a re-run
// adds nothing twice.
func TestCopyAccounts(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	dbPath := filepath.Join(data, "tandem.db")
	src, err := sqlite.Open(dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	acc := accounts.New(src)
	ann, annTok, err := acc.Add(ctx, "test", "ann", true)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := acc.AddSignedIn(ctx, "bob@example.com", "https://idp sub-bob", false)
	if err != nil {
		t.Fatal(err)
	}
	_, carlTok, err := acc.Add(ctx, "test", "carl", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.SetDisabled(ctx, ann.ID, "bob@example.com", true); err != nil {
		t.Fatal(err)
	}
	folder := t.TempDir()
	ws, err := src.AddWorkspace(ctx, folder)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []store.Member{{WorkspaceID: ws.ID, UserID: ann.ID, Role: store.RoleOwner}, {WorkspaceID: ws.ID, UserID: bob.ID, Role: store.RoleViewer}} {
		if err := acc.SetMember(ctx, ann.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := src.CreateSession(ctx, store.Session{Cwd: folder, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.SetOwner(ctx, sess.ID, ann.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := acc.AddSpend(ctx, ann.ID, "2026-12-02", 1.25); err != nil {
		t.Fatal(err)
	}

	dst, err := postgres.Open(ctx, pg.Database(t), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	// PostgreSQL has the folder under an id of its own, and a carl who
	// is someone else.
	pgWS, err := dst.AddWorkspace(ctx, folder)
	if err != nil {
		t.Fatal(err)
	}
	otherCarl, err := dst.CreateUser(ctx, store.User{Name: "carl"})
	if err != nil {
		t.Fatal(err)
	}

	rep, err := Copy(ctx, Source{DBPath: dbPath, DataDir: data}, dst)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Users != 2 || rep.Members != 2 || rep.Owners != 1 || !slices.Equal(rep.UserConflicts, []string{"carl"}) {
		t.Fatalf("report %+v", rep)
	}
	for _, u := range []store.User{ann, bob} {
		a, _ := src.GetUser(ctx, u.ID)
		b, err := dst.GetUser(ctx, u.ID)
		if err != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("user %s:\nsqlite   %+v\npostgres %+v %v", u.Name, a, b, err)
		}
	}
	pgAcc := accounts.New(dst)
	if u, err := pgAcc.Authenticate(ctx, annTok); err != nil || u.ID != ann.ID {
		t.Errorf("ann's token on PostgreSQL: %+v %v", u, err)
	}
	if u, err := pgAcc.Authenticate(ctx, carlTok); err == nil {
		t.Errorf("the SQLite carl's token signs in as %+v on PostgreSQL", u)
	}
	if got, _ := dst.GetUser(ctx, "carl"); got.ID != otherCarl.ID {
		t.Errorf("PostgreSQL's carl was changed: %+v", got)
	}
	ms, err := dst.Members(ctx, pgWS.ID)
	if err != nil || len(ms) != 2 {
		t.Fatalf("members on PostgreSQL: %+v %v", ms, err)
	}
	for _, m := range ms {
		if want := map[string]string{ann.ID: store.RoleOwner, bob.ID: store.RoleViewer}[m.UserID]; m.Role != want {
			t.Errorf("member %+v, want role %s", m, want)
		}
	}
	if owner, _ := dst.SessionOwner(ctx, sess.ID); owner != ann.ID {
		t.Errorf("session owner on PostgreSQL: %q", owner)
	}
	if usd, _ := dst.Spend(ctx, ann.ID, "2026-12-02"); usd != 1.25 {
		t.Errorf("ann's spend on PostgreSQL: %v", usd)
	}
	srcLog, _ := src.ListAudit(ctx, store.AuditQuery{Limit: 1000})
	dstLog, _ := dst.ListAudit(ctx, store.AuditQuery{Limit: 1000})
	if len(srcLog) == 0 || !reflect.DeepEqual(srcLog, dstLog) || rep.Audit != len(srcLog) {
		t.Errorf("audit log:\nsqlite   %+v\npostgres %+v", srcLog, dstLog)
	}

	rep, err = Copy(ctx, Source{DBPath: dbPath, DataDir: data}, dst)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Users != 0 || rep.Members != 0 || rep.Owners != 0 || rep.Audit != 0 {
		t.Errorf("re-run: %+v", rep)
	}
	if usd, _ := dst.Spend(ctx, ann.ID, "2026-12-02"); usd != 1.25 {
		t.Errorf("ann's spend after a re-run: %v", usd)
	}
}
