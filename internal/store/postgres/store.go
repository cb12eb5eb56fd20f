// Package postgres keeps tandem's sessions in PostgreSQL (15 or newer):
// the same contract and guarantees as the SQLite backend, for a team
// server whose replicas share one database.
//
// Connections are pooled (pgxpool). Every connection gets a statement
// timeout (30 s unless the URL sets statement_timeout) so a wedged query
// fails instead of holding a turn forever. Nothing needs a superuser: the
// role needs only to create tables in its schema (the database's owner
// can; see docs/postgres.md).
//
// Concurrency: a write that depends on a session's other rows (appending a
// message at the next position, numbering a checkpoint, a rewind) first
// locks the session's row, so writers of one session queue in the database
// whichever process or machine they run in, and each later statement of
// their transaction (READ COMMITTED) sees what the one before them
// committed: no position or seq is lost or given twice.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// MinServerVersion is the oldest PostgreSQL this backend supports
// (server_version_num).
const MinServerVersion = 150000

// Defaults for what the URL does not set.
const (
	defaultStatementTimeout = 30 * time.Second
	defaultLockTimeout      = 10 * time.Second
	defaultConnectTimeout   = 10 * time.Second
	defaultMaxConns         = 16
)

// Options tune a Store; the zero value is what tandem uses.
type Options struct {
	// Now is the clock for stored times and lease expiry (tests set it);
	// time.Now when nil.
	Now backend.Clock
}

// Store is a handle on one PostgreSQL database. It is safe for concurrent
// use.
type Store struct {
	pool    *pgxpool.Pool
	beats   *pgxpool.Pool // heartbeats' own connections (beat.go)
	where   string        // host:port/database, for messages (no password)
	now     backend.Clock
	version int // server_version_num
}

// Open connects to the database at url (postgres:// or postgresql://),
// checks the server's version and brings the schema up to date.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgconn's parse errors redact the password.
		return nil, fmt.Errorf("open PostgreSQL store: %w (the URL's form: postgres://user:password@host:5432/database)", err)
	}
	cc := cfg.ConnConfig
	rp := cc.RuntimeParams
	if _, ok := rp["statement_timeout"]; !ok {
		rp["statement_timeout"] = strconv.FormatInt(defaultStatementTimeout.Milliseconds(), 10)
	}
	if _, ok := rp["lock_timeout"]; !ok {
		rp["lock_timeout"] = strconv.FormatInt(defaultLockTimeout.Milliseconds(), 10)
	}
	if _, ok := rp["synchronous_commit"]; !ok {
		// The SQLite backend's trade (synchronous=NORMAL): a commit is
		// durable against tandem being killed at once, and the server's WAL
		// writer flushes it within a fraction of a second instead of every
		// step's commit waiting for an fsync. A crash of the database
		// server itself may lose those last commits (never consistency).
		// synchronous_commit=on in the URL restores a flush per commit.
		rp["synchronous_commit"] = "off"
	}
	if _, ok := rp["application_name"]; !ok {
		rp["application_name"] = "tandem"
	}
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = defaultConnectTimeout
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	s := &Store{now: opts.Now, where: where(cc)}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.connErr(err, cc)
	}
	s.pool = pool
	if s.beats, err = beatPool(ctx, cfg); err != nil {
		pool.Close()
		return nil, s.connErr(err, cc)
	}
	if err := s.pool.QueryRow(ctx, openSQL).Scan(&s.version); err != nil {
		s.beats.Close()
		pool.Close()
		return nil, s.connErr(err, cc)
	}
	if s.version < MinServerVersion {
		pool.Close()
		s.beats.Close()
		return nil, fmt.Errorf("open PostgreSQL store %s: the server is PostgreSQL %s; tandem needs %d or newer: upgrade the server",
			s.where, versionText(s.version), MinServerVersion/10000)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		s.beats.Close()
		return nil, fmt.Errorf("open PostgreSQL store %s: %w", s.where, err)
	}
	return s, nil
}

func where(cc *pgx.ConnConfig) string {
	return net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))) + "/" + cc.Database
}

func versionText(n int) string { return fmt.Sprintf("%d.%d", n/10000, n%10000) }

// connErr turns a failure to connect into an error naming the fix.
func (s *Store) connErr(err error, cc *pgx.ConnConfig) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("open PostgreSQL store %s: the server refused user %q (%s): check the user and password in the database URL (TANDEM_DATABASE_URL, --database or database in the user config)",
				s.where, cc.User, pe.Message)
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("open PostgreSQL store %s: database %q does not exist: create it (createdb -O %s %s) or fix the database name in the URL",
				s.where, cc.Database, cc.User, cc.Database)
		case "53300": // too_many_connections
			return fmt.Errorf("open PostgreSQL store %s: the server has no free connection (%s): lower pool_max_conns in the URL or raise the server's max_connections",
				s.where, pe.Message)
		}
		return fmt.Errorf("open PostgreSQL store %s: %w", s.where, err)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("open PostgreSQL store: cannot reach the server at %s (%v): check that PostgreSQL is running and that the URL's host and port are right",
			s.where, rootCause(err))
	}
	return fmt.Errorf("open PostgreSQL store %s: %w", s.where, err)
}

// rootCause is the innermost error, without pgconn's prefix that repeats
// the user and database.
func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

var _ store.Store = (*Store)(nil)

// Info names the backend, the database (host:port/name, never the
// password), its schema level and the server's version.
func (s *Store) Info(ctx context.Context) (store.Info, error) {
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		return store.Info{}, fmt.Errorf("read schema level of %s: %w", s.where, err)
	}
	info := store.Info{Backend: "postgres", Location: "postgres://" + s.where, Schema: v, SchemaLatest: LatestSchema(),
		Server: "PostgreSQL " + versionText(s.version)}
	var user string
	var super bool
	if err := s.pool.QueryRow(ctx, infoSQL).Scan(&user, &super); err == nil {
		d := "role " + user
		if super {
			d += " (a superuser: tandem needs no more than to own its database)"
		}
		info.Details = append(info.Details, d)
	}
	st := s.pool.Stat()
	info.Details = append(info.Details, fmt.Sprintf("pool: %d of at most %d connections open", st.TotalConns(), st.MaxConns()))
	return info, nil
}

// Close closes every pooled connection.
func (s *Store) Close() error {
	s.pool.Close()
	s.beats.Close()
	return nil
}

// nowUTC is the store's clock, truncated of its monotonic reading.
func (s *Store) nowUTC() time.Time { return s.now.Now() }

// Check reports problems with the database: none when it answers and its
// schema is this binary's. (PostgreSQL checks its own pages; amcheck needs
// privileges tandem's role should not have.)
func (s *Store) Check(ctx context.Context) ([]string, error) {
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", s.where, err)
	}
	all, err := migrations()
	if err != nil {
		return nil, err
	}
	if latest := all[len(all)-1].Version; v != latest {
		return []string{fmt.Sprintf("schema version %d, this tandem's is %d", v, latest)}, nil
	}
	return nil, nil
}

// tx runs fn in one transaction and commits it, or rolls back when fn
// fails.
func (s *Store) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// lockSession locks the session's row for the rest of the transaction
// (see the package doc), or says it does not exist.
func lockSession(ctx context.Context, tx pgx.Tx, id string) error {
	var one int
	err := tx.QueryRow(ctx, lockSessionSQL, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("session %s: %w", id, store.ErrNotFound)
	}
	return err
}

// mustAffect turns "no row changed" into ErrNotFound.
func mustAffect(tag pgconn.CommandTag, err error) error {
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// isCode reports a server error of the given SQLSTATE.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// CopyTx runs fn in one transaction: for storecopy, which writes rows as
// another backend stored them.
func (s *Store) CopyTx(ctx context.Context, fn func(tx pgx.Tx) error) error { return s.tx(ctx, fn) }
