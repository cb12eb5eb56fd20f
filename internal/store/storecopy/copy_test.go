package storecopy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
	"github.com/tandem-agent/tandem/internal/store/postgres"
	"github.com/tandem-agent/tandem/internal/store/sqlite"
)

var pg = pgtest.New()

func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }

func text(s string) []message.Block { return []message.Block{message.TextBlock(s)} }

// Everything the SQLite file holds arrives in PostgreSQL as it was; a
// re-run picks up what SQLite gained and leaves alone what changed in
// PostgreSQL.
func TestCopy(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	dbPath := filepath.Join(data, "tandem.db")
	src, err := sqlite.Open(dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sess, err := src.CreateSession(ctx, store.Session{Cwd: "/p", Model: "m", Meta: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	cost := 0.5
	for i, m := range []message.Message{
		{Role: message.User, Content: text("first prompt")},
		{Role: message.Assistant, Content: []message.Block{{Type: message.ToolUse, ID: "call_1", Name: "Agent", Input: []byte(`{"x": 1}`)}},
			Usage: &message.Usage{InputTokens: 5, OutputTokens: 2}, CostUSD: &cost, ProviderID: "prov_1"},
		{Role: message.User, Content: text("second prompt")},
		{Role: message.Assistant, Content: text("answer")},
	} {
		if i == 2 {
			if _, err := src.CreateCheckpoint(ctx, sess.ID, "second prompt", `{"r":1}`); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := src.AppendWithSeq(ctx, sess.ID, m, int64(10+i)); err != nil {
			t.Fatal(err)
		}
	}
	kid, err := src.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: sess.ID, ParentToolUseID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.AppendMessage(ctx, kid.ID, message.Message{Role: message.User, Content: text("sub task")}); err != nil {
		t.Fatal(err)
	}
	// A rewind sets messages aside: they are copied too.
	if _, err := src.RewindConversation(ctx, sess.ID, 1, 3, map[string]string{"resume": "x"}); err != nil {
		t.Fatal(err)
	}
	// A checkpoint with a saved file whose content is in the data folder.
	content := []byte("package main\n")
	sum := sha256.Sum256(content)
	hash := hex.EncodeToString(sum[:])
	blob := filepath.Join(data, "checkpoints", "blobs", hash[:2], hash[2:])
	os.MkdirAll(filepath.Dir(blob), 0o700)
	if err := os.WriteFile(blob, content, 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := src.CreateCheckpoint(ctx, sess.ID, "third", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.AddCheckpointFiles(ctx, sess.ID, cp.Number, []store.CheckpointFile{
		{Path: "/p/main.go", State: store.FileSaved, Hash: hash, Mode: 0o644},
		{Path: "/p/new.go", State: store.FileAbsent},
	}, map[string]string{"/p/main.go": "abc"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if _, err := src.AddWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddGrant(ctx, store.Grant{Scope: "/p", Tool: "Bash", Pattern: "go test:*", Action: "allow"}); err != nil {
		t.Fatal(err)
	}

	dst, err := postgres.Open(ctx, pg.Database(t), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	rep, err := Copy(ctx, Source{DBPath: dbPath, DataDir: data}, dst)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 2 || rep.Updated != 0 || rep.Workspaces != 1 || rep.Grants != 1 || len(rep.Missing) != 0 || len(rep.Skipped) != 0 {
		t.Fatalf("first copy: %+v", rep)
	}
	same := func() {
		t.Helper()
		for _, id := range []string{sess.ID, kid.ID} {
			a, err := src.GetSession(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			b, err := dst.GetSession(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("session %s:\nsqlite   %+v\npostgres %+v", id, a, b)
			}
			am, _ := src.Messages(ctx, id)
			bm, _ := dst.Messages(ctx, id)
			if !reflect.DeepEqual(am, bm) {
				t.Errorf("messages of %s differ:\n%+v\n%+v", id, am, bm)
			}
		}
		ac, _ := src.Checkpoints(ctx, sess.ID)
		bc, _ := dst.Checkpoints(ctx, sess.ID)
		if !reflect.DeepEqual(ac, bc) {
			t.Errorf("checkpoints differ:\n%+v\n%+v", ac, bc)
		}
		ak, _ := src.KnownFiles(ctx, sess.ID)
		bk, _ := dst.KnownFiles(ctx, sess.ID)
		if !reflect.DeepEqual(ak, bk) {
			t.Errorf("known files differ: %v %v", ak, bk)
		}
		ar, _ := src.RewoundMessageCount(ctx, sess.ID)
		br, _ := dst.RewoundMessageCount(ctx, sess.ID)
		if ar != br || ar == 0 {
			t.Errorf("rewound messages: %d and %d", ar, br)
		}
	}
	same()
	if got, err := dst.Blob(ctx, hash); err != nil || string(got) != string(content) {
		t.Fatalf("checkpoint content in PostgreSQL: %q %v", got, err)
	}
	gs, _ := dst.ListGrants(ctx, "/p")
	wss, _ := dst.ListWorkspaces(ctx)
	if len(gs) != 1 || len(wss) != 1 || wss[0].Path != ws {
		t.Fatalf("grants %v workspaces %v", gs, wss)
	}

	// Re-run after the SQLite session grew: it is copied again, nothing
	// doubles.
	if _, err := src.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: text("later")}); err != nil {
		t.Fatal(err)
	}
	rep, err = Copy(ctx, Source{DBPath: dbPath, DataDir: data}, dst)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 0 || rep.Updated != 2 || rep.Workspaces != 0 || rep.Grants != 0 || rep.Blobs != 0 {
		t.Fatalf("re-run: %+v", rep)
	}
	same()

	// A session used in PostgreSQL since is left alone.
	if _, err := dst.AppendMessage(ctx, kid.ID, message.Message{Role: message.User, Content: text("on postgres")}); err != nil {
		t.Fatal(err)
	}
	rep, err = Copy(ctx, Source{DBPath: dbPath, DataDir: data}, dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0] != kid.ID || rep.Updated != 1 {
		t.Fatalf("re-run with a session changed in PostgreSQL: %+v", rep)
	}
	km, _ := dst.Messages(ctx, kid.ID)
	if len(km) != 2 {
		t.Fatalf("the PostgreSQL-side message was lost: %d messages", len(km))
	}
}
