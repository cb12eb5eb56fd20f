// Package storeopen picks and opens a store backend from a database URL.
// Outside internal/store/... nothing names a backend: everything else holds
// a store.Store (or the small interfaces it is made of).
//
//	""                      the SQLite file Options.DefaultFile (tandem's data folder)
//	/path/to/file.db        a SQLite file (a relative path is taken from the working folder)
//	sqlite:PATH             the same, spelled as a URL (sqlite:///abs/path also works)
//	postgres://... , postgresql://...   PostgreSQL (see postgres.go)
package storeopen

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/sqlite"
)

// Options are what opening needs beside the URL.
type Options struct {
	// DefaultFile is the SQLite file used when the URL is empty.
	DefaultFile string
}

// Kind names a backend.
type Kind string

// The backends.
const (
	SQLite   Kind = "sqlite"
	Postgres Kind = "postgres"
)

// Parse says which backend rawURL names and, for SQLite, the file (empty
// for the default file). It refuses a URL of any other scheme, naming the
// forms it accepts.
func Parse(rawURL string) (Kind, string, error) {
	u := strings.TrimSpace(rawURL)
	switch {
	case u == "":
		return SQLite, "", nil
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		return Postgres, "", nil
	case strings.HasPrefix(u, "sqlite:"):
		path := strings.TrimPrefix(u, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		if path == "" {
			return "", "", fmt.Errorf("database %q names no file: give sqlite:/path/to/tandem.db or just the path", rawURL)
		}
		return SQLite, path, nil
	}
	if scheme, _, ok := strings.Cut(u, "://"); ok && !strings.ContainsAny(scheme, `/\`) {
		return "", "", fmt.Errorf("database %q: unknown scheme %q (use a SQLite file path, sqlite:PATH, or postgres://user@host/db)", Redact(rawURL), scheme)
	}
	return SQLite, u, nil
}

// Open opens the store rawURL names (see the package doc) and brings its
// schema up to date.
func Open(ctx context.Context, rawURL string, opts Options) (store.Store, error) {
	kind, path, err := Parse(rawURL)
	if err != nil {
		return nil, err
	}
	var st store.Store
	switch kind {
	case Postgres:
		st, err = openPostgres(ctx, rawURL, opts)
	default:
		if path == "" {
			path = opts.DefaultFile
		}
		if path == "" {
			return nil, errors.New("open store: no database given and no default file")
		}
		st, err = sqlite.Open(path, sqlite.Options{})
	}
	if err != nil {
		return nil, &OpenError{Kind: kind, Err: err}
	}
	return st, nil
}

// OpenError is a failure to open a store, with the backend it was: the
// way out differs (doctor's hint).
type OpenError struct {
	Kind Kind
	Err  error
}

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// Redact is rawURL with any password replaced by "xxxxx", for messages
// and `tandem doctor`.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL
	}
	if _, has := u.User.Password(); !has {
		return rawURL
	}
	return u.Redacted()
}
