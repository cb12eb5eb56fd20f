package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

// The basics round-trip: a session, its messages with usage and cost and
// title, meta, prefix lookup, listing, children, delete cascading.
func TestRoundTrip(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess, err := s.CreateSession(ctx, store.Session{Cwd: "/p/", Meta: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("\n  hello   world\nmore")}}); err != nil {
		t.Fatal(err)
	}
	in := []byte(`{"b": 1,  "a": [2]}`)
	if _, err := s.AppendWithSeq(ctx, sess.ID, message.Message{Role: message.Assistant, Model: "m1",
		Content: []message.Block{{Type: message.ToolUse, ID: "call_1", Name: "Read", Input: in}},
		Usage:   &message.Usage{InputTokens: 10, OutputTokens: 3}, CostUSD: ptr(0.25)}, 42); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetSession(ctx, strings.TrimPrefix(sess.ID, "ses_")[:8])
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != sess.ID || got.Cwd != "/p" || got.Title != "hello world" || got.MessageCount != 2 || got.LastSeq != 42 ||
		got.Usage.InputTokens != 10 || got.CostUSD == nil || *got.CostUSD != 0.25 || got.Meta["k"] != "v" {
		t.Fatalf("session %+v", got)
	}
	msgs, err := s.Messages(ctx, sess.ID)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages %v %v", msgs, err)
	}
	if string(msgs[1].Content[0].Input) != string(in) || msgs[1].Usage.OutputTokens != 3 || msgs[0].Usage != nil {
		t.Fatalf("message 2 %+v", msgs[1])
	}
	kid, err := s.CreateSession(ctx, store.Session{Cwd: "/p", ParentID: sess.ID, ParentToolUseID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.SubagentRuns(ctx, sess.ID, msgs)
	if err != nil || len(runs) != 1 || runs[0].Session.ID != kid.ID {
		t.Fatalf("subagent runs %+v %v", runs, err)
	}
	latest, err := s.LatestSession(ctx, "/p")
	if err != nil || latest.ID != sess.ID {
		t.Fatalf("latest %v %v (a sub-agent is never the latest)", latest.ID, err)
	}
	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSession(ctx, kid.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("child after parent's delete: %v", err)
	}
	if _, err := s.Messages(ctx, sess.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("messages of a deleted session: %v", err)
	}
	if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.User}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("append to a deleted session: %v", err)
	}
}

// A prefix is matched literally: '_' and '%' are not LIKE wildcards, and
// case matters.
func TestPrefixIsLiteral(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	for _, id := range []string{"abcdefgh1", "abcdefXh2"} {
		if _, err := s.CreateSession(ctx, store.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.GetSession(ctx, "abcdef_h"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("'_' matched as a wildcard: %v", err)
	}
	if _, err := s.GetSession(ctx, "ABCDEFG"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("prefix matched case-insensitively: %v", err)
	}
	if _, err := s.GetSession(ctx, "abcdef"); !errors.Is(err, store.ErrAmbiguous) {
		t.Fatalf("ambiguous prefix: %v", err)
	}
}

// Many goroutines on two pools (two processes, or two replicas of a team
// server) append to one session at once: every message gets its own
// position, none is lost or given twice, the totals add up and last_seq
// ends at the highest seq written.
func TestConcurrentWritersTwoPools(t *testing.T) {
	a, url := openTest(t)
	b, err := Open(context.Background(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	sess := newSession(t, a, "/p")
	const goroutines, perG = 16, 20
	var seq atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*perG)
	for g := range goroutines {
		st := []*Store{a, b}[g%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perG {
				m := message.Message{Role: message.Assistant, Content: []message.Block{message.TextBlock(fmt.Sprintf("g%d i%d", g, i))},
					Usage: &message.Usage{InputTokens: 1}, CostUSD: ptr(0.5)}
				if _, err := st.AppendWithSeq(ctx, sess.ID, m, seq.Add(1)); err != nil {
					errs <- err
				}
				if i%4 == 0 {
					if err := st.SetMeta(ctx, sess.ID, "last", m.PlainText()); err != nil {
						errs <- err
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const want = goroutines * perG
	msgs, err := b.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		if seen[m.PlainText()] {
			t.Errorf("duplicate %q", m.PlainText())
		}
		seen[m.PlainText()] = true
	}
	if len(msgs) != want {
		t.Errorf("%d messages, want %d", len(msgs), want)
	}
	var maxPos, distinct int
	if err := a.pool.QueryRow(ctx, `SELECT max(position), count(DISTINCT position) FROM messages WHERE session_id = $1`, sess.ID).Scan(&maxPos, &distinct); err != nil {
		t.Fatal(err)
	}
	if maxPos != want || distinct != want {
		t.Errorf("positions: max %d, distinct %d; want 1..%d", maxPos, distinct, want)
	}
	got, _ := a.GetSession(ctx, sess.ID)
	if got.MessageCount != want || got.Usage.InputTokens != want || *got.CostUSD != 0.5*want || got.LastSeq != want {
		t.Errorf("totals: count %d, input %d, cost %v, last_seq %d; want %d", got.MessageCount, got.Usage.InputTokens, *got.CostUSD, got.LastSeq, want)
	}
}

// Runners in two pools racing for one session's lease: exactly one holds
// it, the rest are told who does.
func TestLeaseOneHolderUnderRace(t *testing.T) {
	a, url := openTest(t)
	b, err := Open(context.Background(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	for round := range 5 {
		sess := newSession(t, a, "/p")
		var wg sync.WaitGroup
		var won atomic.Int32
		for g := range 12 {
			st := []*Store{a, b}[g%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				h := store.Holder{ID: fmt.Sprintf("r%d-h%d", round, g), PID: 1000 + g, Host: "h"}
				err := st.AcquireLease(ctx, sess.ID, h, time.Minute, func(int) bool { return false })
				switch {
				case err == nil:
					won.Add(1)
				case !errors.Is(err, store.ErrBusy):
					t.Errorf("holder %d: %v", g, err)
				}
			}()
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("round %d: %d holders got the lease", round, won.Load())
		}
	}
}

// A lease that expired is taken over; its old holder's renewal then fails
// (the fence: it learns it must stop).
func TestLeaseTakeoverFencesOldHolder(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	sess := newSession(t, s, "/p")
	a := store.Holder{ID: "a", PID: 1, Host: "h1"}
	b := store.Holder{ID: "b", PID: 2, Host: "h2"}
	if err := s.AcquireLease(ctx, sess.ID, a, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(9 * time.Second)
	var be *store.BusyError
	if err := s.AcquireLease(ctx, sess.ID, b, 10*time.Second, nil); !errors.As(err, &be) || be.PID != 1 {
		t.Fatalf("before expiry: %v", err)
	}
	clock = clock.Add(2 * time.Second)
	if err := s.AcquireLease(ctx, sess.ID, b, 10*time.Second, nil); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if err := s.RenewLease(ctx, sess.ID, "a", time.Minute); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("old holder renewed a lease taken over: %v", err)
	}
	if err := s.AcquireLease(ctx, "ses_nope", a, time.Second, nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("lease of an unknown session: %v", err)
	}
}

// Checkpoint blobs live in the database, stored once per content.
func TestBlobsDeduplicated(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	h1, err := s.PutBlob(ctx, []byte("content"))
	if err != nil {
		t.Fatal(err)
	}
	h2, err := s.PutBlob(ctx, []byte("content"))
	if err != nil || h1 != h2 {
		t.Fatalf("same content: %s %s %v", h1, h2, err)
	}
	var n int
	s.pool.QueryRow(ctx, `SELECT count(*) FROM checkpoint_blobs`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d blob rows for one content", n)
	}
	got, err := s.Blob(ctx, h1)
	if err != nil || string(got) != "content" {
		t.Fatalf("blob %q %v", got, err)
	}
	if _, err := s.Blob(ctx, strings.Repeat("0", 64)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown blob: %v", err)
	}
	// Referenced blobs survive a collection; unreferenced old ones go.
	sess := newSession(t, s, "/p")
	cp, err := s.CreateCheckpoint(ctx, sess.ID, "p", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddCheckpointFiles(ctx, sess.ID, cp.Number, []store.CheckpointFile{{Path: "/p/a", State: store.FileSaved, Hash: h1, Mode: 0o644}}, map[string]string{"/p/a": h1}); err != nil {
		t.Fatal(err)
	}
	orphan, _ := s.PutBlob(ctx, []byte("orphan"))
	s.now = func() time.Time { return time.Now().Add(time.Hour) }
	if n, err := s.CollectBlobs(ctx, time.Minute); err != nil || n != 1 {
		t.Fatalf("collected %d, %v; want the orphan only", n, err)
	}
	if _, err := s.Blob(ctx, orphan); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("orphan kept: %v", err)
	}
	if _, err := s.Blob(ctx, h1); err != nil {
		t.Fatalf("referenced blob collected: %v", err)
	}
}

// A database a newer tandem migrated is refused with the fix named.
func TestNewerSchemaRefused(t *testing.T) {
	s, url := openTest(t)
	ctx := context.Background()
	if _, err := s.pool.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, url, Options{})
	if err == nil || !strings.Contains(err.Error(), "newer than this tandem supports") || !strings.Contains(err.Error(), "upgrade tandem") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

// The role tandem connects as in these tests is no superuser, and the
// connections carry a statement timeout.
func TestNoSuperuserAndTimeouts(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	var super bool
	var timeout, app, syncCommit string
	if err := s.pool.QueryRow(ctx, `SELECT rolsuper, current_setting('statement_timeout'), current_setting('application_name'),
		current_setting('synchronous_commit') FROM pg_roles WHERE rolname = current_user`).Scan(&super, &timeout, &app, &syncCommit); err != nil {
		t.Fatal(err)
	}
	if super || timeout != "30s" || app != "tandem" || syncCommit != "off" {
		t.Fatalf("superuser %v, statement_timeout %q, application_name %q, synchronous_commit %q", super, timeout, app, syncCommit)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != LatestSchema() {
		t.Fatalf("schema version %d %v, want %d", v, err, LatestSchema())
	}
}

// Bad connection details get errors naming the fix, and never echo the
// password.
func TestConnectErrors(t *testing.T) {
	good := pg.Database(t)
	u, _ := url.Parse(good)
	ctx := context.Background()

	wrong := *u
	wrong.User = url.UserPassword(pgtest.AppUser, "not-the-password")
	_, err := Open(ctx, wrong.String(), Options{})
	if err == nil || !strings.Contains(err.Error(), "refused user") || !strings.Contains(err.Error(), "check the user and password") {
		t.Fatalf("wrong password: %v", err)
	}
	if strings.Contains(err.Error(), "not-the-password") {
		t.Fatalf("the error shows the password: %v", err)
	}

	nodb := *u
	nodb.Path = "/no_such_db"
	if _, err := Open(ctx, nodb.String(), Options{}); err == nil || !strings.Contains(err.Error(), "does not exist: create it") {
		t.Fatalf("missing database: %v", err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now
	down := *u
	down.Host = fmt.Sprintf("127.0.0.1:%d", port)
	if _, err := Open(ctx, down.String(), Options{}); err == nil || !strings.Contains(err.Error(), "cannot reach the server") ||
		!strings.Contains(err.Error(), "check that PostgreSQL is running") {
		t.Fatalf("unreachable server: %v", err)
	}

	if _, err := Open(ctx, "postgres://a b@:x", Options{}); err == nil || !strings.Contains(err.Error(), "postgres://user:password@host") {
		t.Fatalf("bad URL: %v", err)
	}
}

// A write whose connection the server ended is retried on a fresh one and
// stored once.
func TestAppendSurvivesLostConnection(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/p")
	// End every pooled connection of the app role from the server side.
	srv := pg.Server(t)
	c, err := pgx.Connect(ctx, srv.AdminURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, pgtest.AppUser); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendWithSeq(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("hi")}}, 3); err != nil {
		t.Fatalf("append after the server ended the connections: %v", err)
	}
	msgs, _ := s.Messages(ctx, sess.ID)
	if len(msgs) != 1 {
		t.Fatalf("%d messages stored, want 1", len(msgs))
	}
}
