// Package sqlite is the default store backend: tandem's sessions, their
// messages, registered workspaces and saved permission grants in one
// SQLite file (modernc.org/sqlite, pure Go). It implements store.Store;
// its statements are the embedded files under queries/, its schema the
// numbered files under migrations/.
//
// The same file is used at once by the CLI, by many goroutines of
// `tandem serve` and by several `tandem run` processes, so every connection
// runs in WAL mode (readers never block the writer) with a busy timeout, and
// every write transaction begins IMMEDIATE: a writer takes the write lock up
// front and waits for it, instead of failing with SQLITE_BUSY when it tries
// to upgrade a read lock. Within one process writes are also serialised by a
// mutex, so goroutines queue in Go rather than in SQLite's sleeping busy
// handler, which is unfair and could starve one of them past the timeout.
//
// synchronous=NORMAL: in WAL mode a commit is written to the WAL before it
// returns, so it survives the process being killed at any point; only an OS
// crash or power loss may lose the last few commits (the database stays
// consistent). That is the right trade for a conversation log whose commits
// happen after every model step, where FULL's fsync per commit would be paid
// on every step.
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
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// The contract this package implements.
var _ store.Store = (*Store)(nil)

// busyTimeout is how long a connection waits for another process's write
// lock before giving up. Write transactions are short (one message), so five
// seconds means something is wrong rather than merely busy.
const busyTimeout = 5 * time.Second

// maxIdleConns is how many pooled connections stay open between uses.
const maxIdleConns = 8

// Store is a handle on one database file. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	// writeMu serialises this process's write transactions (see package doc).
	writeMu sync.Mutex
	stmts   stmtCache
	now     backend.Clock
	// fullWait: see fullRetry.
	fullWait time.Duration
	// full is set when the store was opened read-only because the disk is
	// full; every write fails with it.
	full error
	// watchers are woken after AppendEvents (events.go).
	watchers watchers
}

// Options tune a store; the zero value is what tandem uses.
type Options struct {
	// Now is the store's clock (time.Now when nil); tests give their own.
	Now func() time.Time
}

// Open opens (creating when missing) the database at path and brings its
// schema up to date. The parent directory is created with mode 0700 and a
// new file with mode 0600: sessions hold source code and command output.
func Open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open store %s: create directory: %w", abs, err)
	}
	// Create the file ourselves so it gets 0600; SQLite gives the -wal and
	// -shm files the same mode as the database file.
	s := &Store{path: abs, now: opts.Now, fullWait: fullRetry}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, s.fullErr(err, ""))
	}
	f.Close()

	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	// database/sql keeps 2 idle connections by default; a server's many
	// sessions reading at once then opened (pragmas, statements prepared
	// anew) and closed connections all the time.
	db.SetMaxIdleConns(maxIdleConns)
	s.db = db
	if err := retryBusy(func() error { return s.migrate(context.Background()) }); err != nil {
		db.Close()
		err = s.fullErr(err, "")
		if errors.Is(err, store.ErrDiskFull) {
			// Let the user still list, show and export sessions (to see
			// what to delete) and run doctor.
			if ro, rerr := openFullReadOnly(abs, err); rerr == nil {
				return ro, nil
			}
		}
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	return s, nil
}

// dsn builds the modernc.org/sqlite URI; the driver applies the pragmas on
// every new pooled connection, busy_timeout first.
func dsn(path string) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	if !strings.HasPrefix(u.Path, "/") { // Windows drive paths
		u.Path = "/" + u.Path
	}
	return u.String()
}

// Path is the database file's absolute path.
func (s *Store) Path() string { return s.path }

// dir is the database's folder, tandem's data folder.
func (s *Store) dir() string { return filepath.Dir(s.path) }

// Close closes the database.
func (s *Store) Close() error {
	serr := s.stmts.close()
	if err := errors.Join(serr, s.db.Close()); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// write runs fn in one write transaction (BEGIN IMMEDIATE, via _txlock) and
// commits it, or rolls back when fn fails.
// A full disk comes back as a *DiskFullError.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.full != nil {
		return s.full
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", s.fullErr(err, ""))
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.fullErr(err, "")
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", s.fullErr(err, ""))
	}
	return nil
}

// nanos and fromNanos convert times to and from their stored form.
func nanos(t time.Time) int64 { return backend.Nanos(t) }

func fromNanos(n int64) time.Time { return backend.FromNanos(n) }

// nowUTC is the store's clock, truncated of its monotonic reading.
func (s *Store) nowUTC() time.Time { return s.now.Now() }

// Check runs SQLite's quick_check (queries/quick_check.sql) and returns the problems it found; none means the
// file is sound.
func (s *Store) Check(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, quickCheckSQL)
	if err != nil {
		if isCorrupt(err) {
			return []string{err.Error()}, nil
		}
		return nil, fmt.Errorf("check %s: %w", s.path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("check %s: %w", s.path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		if isCorrupt(err) {
			return append(problems, err.Error()), nil
		}
		return nil, fmt.Errorf("check %s: %w", s.path, err)
	}
	return problems, nil
}

// Info names the backend, the file and its schema level.
func (s *Store) Info(ctx context.Context) (store.Info, error) {
	all, err := migrations()
	if err != nil {
		return store.Info{}, err
	}
	applied, err := s.appliedVersions(ctx)
	if err != nil {
		return store.Info{}, fmt.Errorf("read schema level of %s: %w", s.path, err)
	}
	info := store.Info{Backend: "sqlite", Location: s.path, SchemaLatest: all[len(all)-1].Version}
	for v := range applied {
		info.Schema = max(info.Schema, v)
	}
	if s.full != nil {
		info.Details = append(info.Details, "opened read-only: the disk is full")
	}
	return info, nil
}
