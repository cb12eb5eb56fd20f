package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
)

// `tandem doctor` checks the database: ok when sound; a file damaged in
// its data pages is reported as corrupt with what to do (exit 1); a file
// that is not a database at all is reported too.
func TestE2EDoctorChecksDatabase(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	db := filepath.Join(x.Home, "tandem.db")
	st, err := storeopen.Open(context.Background(), db, storeopen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sess, _ := st.CreateSession(ctx, store.Session{Cwd: x.Work})
	big := strings.Repeat("stored words ", 600)
	for i := 0; i < 200; i++ {
		if _, err := st.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock(big)}}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if r := x.Run("doctor"); r.Code != 0 || !strings.Contains(r.Stdout, "database check: ok") {
		t.Fatalf("sound database: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	for off := fi.Size() / 2; off < fi.Size()-8192; off += 64 << 10 {
		f.WriteAt(junk, off)
	}
	f.Close()
	r := x.Run("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, "database check: CORRUPT") || !strings.Contains(r.Stdout, ".recover") {
		t.Fatalf("corrupted database: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	os.WriteFile(db, []byte(strings.Repeat("this is not a database\n", 500)), 0o600)
	r = x.Run("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, "ERROR") || !strings.Contains(r.Stdout, "move the\n  file aside") {
		t.Fatalf("not a database: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
