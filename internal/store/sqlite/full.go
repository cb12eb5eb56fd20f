package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// diskFull reports whether err means the disk is full: SQLITE_FULL, an
// ENOSPC or EDQUOT in the chain, or an I/O error (SQLite reports a shared
// memory file it cannot grow as one) on a disk with no space left.
func (s *Store) diskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return true
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
		return noSpaceLeft(s.dir())
	}
	return false
}

// fullErr wraps err as a *DiskFullError when it is one.
func (s *Store) fullErr(err error, what string) error {
	if s.diskFull(err) {
		return &store.DiskFullError{Dir: s.dir(), What: what, Err: err}
	}
	return err
}

// fullRetry is how long a message write that found the disk full keeps
// retrying, so a turn survives space that comes back soon (a temporary file
// deleted, a build finishing) before it fails with a *DiskFullError.
const fullRetry = 10 * time.Second

// AppendWithSeq stores m like AppendMessage, raises the session's last_seq
// to lastSeq (the session's latest event number; 0 leaves it) in the same
// transaction, and on a full disk keeps retrying for 10 s before failing
// with a *DiskFullError naming what was not stored. It is how a turn's
// messages are written.
func (s *Store) AppendWithSeq(ctx context.Context, sessionID string, m message.Message, lastSeq int64) (message.Message, error) {
	deadline := time.Now().Add(s.fullWait)
	wait := 100 * time.Millisecond
	for {
		out, err := s.appendMessage(ctx, sessionID, m, lastSeq)
		if err == nil || !errors.Is(err, store.ErrDiskFull) {
			return out, err
		}
		if !time.Now().Before(deadline) {
			var fe *store.DiskFullError
			if errors.As(err, &fe) { // the wrapping messages are already formatted: say it anew
				err = fmt.Errorf("session %s: %w", sessionID, &store.DiskFullError{Dir: fe.Dir, What: backend.Describe(m), Err: fe.Err})
			}
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// openFullReadOnly opens the database at path read-only without its -shm
// file, which a full disk has no room for. That is safe only when no WAL
// holds commits beyond the file (the last process closed it cleanly);
// SQLite then reads the file as it is. Every write fails with full.
func openFullReadOnly(path string, full error) (*Store, error) {
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, errors.New("the WAL holds commits: a read-only open would miss them")
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	q.Set("_foreign_keys", "1")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path, full: full}
	ctx := context.Background()
	all, err := migrations()
	if err != nil {
		db.Close()
		return nil, err
	}
	applied, err := s.appliedVersions(ctx)
	if err != nil || len(applied) != len(all) {
		db.Close()
		return nil, fmt.Errorf("schema not current: %v", err)
	}
	return s, nil
}
