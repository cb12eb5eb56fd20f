package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store/backend"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations lists the embedded migration files in version order.
func migrations() ([]backend.Migration, error) {
	return backend.Migrations(migrationFS, "migrations")
}

// LatestSchema is the schema version this binary brings a database to.
func LatestSchema() int {
	all, err := migrations()
	if err != nil || len(all) == 0 {
		return 0
	}
	return all[len(all)-1].Version
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
	latest := all[len(all)-1].Version
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
			if applied[m.Version] {
				continue // another process got there first
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("apply migration %s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, migrate4SQL,
				m.Version, m.Name, s.nowUTC().UnixNano()); err != nil {
				return fmt.Errorf("apply migration %s: %w", m.Name, err)
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
