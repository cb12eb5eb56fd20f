package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/store"
)

func TestIsBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tandem.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A second handle that does not wait for locks.
	raw, err := sql.Open("sqlite", "file://"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil) // holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	_, err = raw.ExecContext(ctx, `INSERT INTO workspaces VALUES ('w', '/x', 'x', 0)`)
	if !isBusy(err) {
		t.Fatalf("write under another's lock: err = %v, want busy", err)
	}
	if isBusy(errors.New("database is locked")) || isBusy(nil) || isBusy(store.ErrNotFound) {
		t.Error("isBusy true for a non-SQLite error")
	}
}
