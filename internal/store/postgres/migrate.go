package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded migration files in version order; a file
// is named NNNN_description.sql as the SQLite backend's are. The versions
// are this backend's own.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %s: name must start with a positive number and '_'", name)
		}
		body, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", out[i-1].name, out[i].name, out[i].version)
		}
	}
	return out, nil
}

// LatestSchema is the schema version this binary brings a database to.
func LatestSchema() int {
	all, err := migrations()
	if err != nil || len(all) == 0 {
		return 0
	}
	return all[len(all)-1].version
}

// migrateLock is the advisory lock key under which one process at a time
// migrates a database (any number of replicas may start at once).
const migrateLock = 7_346_221_913

// migrate applies the pending migrations, all in one transaction under an
// advisory lock (PostgreSQL's DDL is transactional: a failed migration
// leaves nothing half done). The common case, a current schema, costs one
// read without the lock.
func (s *Store) migrate(ctx context.Context) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	latest := all[len(all)-1].version
	current, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if err := newerErr(current, latest); err != nil {
		return err
	}
	if current == latest {
		return nil
	}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, migrateSQL, int64(migrateLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, migrate2SQL); err != nil {
			return err
		}
		applied := map[int]bool{}
		rows, err := tx.Query(ctx, migrate3SQL)
		if err != nil {
			return err
		}
		vs, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			return err
		}
		for _, v := range vs {
			applied[int(v)] = true
			if err := newerErr(int(v), latest); err != nil {
				return err
			}
		}
		for _, m := range all {
			if applied[m.version] {
				continue // another process got there first
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("apply migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, migrate4SQL,
				m.version, m.name, s.nowUTC().UnixNano()); err != nil {
				return fmt.Errorf("apply migration %s: %w", m.name, err)
			}
		}
		return nil
	})
	if isCode(err, "42501") { // insufficient_privilege
		return fmt.Errorf("%w: the role may not create tables here: make it the database's owner (ALTER DATABASE ... OWNER TO ...) or GRANT CREATE ON SCHEMA public TO it; no superuser is needed", err)
	}
	return err
}

// newerErr refuses a database a newer tandem has migrated.
func newerErr(v, latest int) error {
	if v > latest {
		return fmt.Errorf("database schema version %d is newer than this tandem supports (%d): upgrade tandem (every tandem sharing the database must be at least as new as the newest that opened it)", v, latest)
	}
	return nil
}

// SchemaVersion is the highest migration applied to the database (0 for an
// empty one).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, schemaVersionSQL).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v *int32
	if err := s.pool.QueryRow(ctx, schemaVersion2SQL).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if v == nil {
		return 0, nil
	}
	return int(*v), nil
}
