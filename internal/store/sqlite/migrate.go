package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/tandem-agent/tandem/internal/store/backend"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations lists the embedded migration files in version order.
func migrations() ([]backend.Migration, error) {
	return backend.Migrations(migrationFS, "migrations")
}

// migrate applies the pending migrations, each in its own IMMEDIATE
// transaction. The common case (schema current) costs one read of
// schema_migrations. Another process may be migrating the same file at the
// same moment, so each migration re-checks inside its transaction.
func (s *Store) migrate(ctx context.Context) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	applied, err := s.appliedVersions(ctx)
	if err != nil {
		return err
	}
	latest := all[len(all)-1].Version
	for v := range applied {
		if v > latest {
			return fmt.Errorf("database schema version %d is newer than this tandem supports (%d): upgrade tandem", v, latest)
		}
	}
	for _, m := range all {
		if applied[m.Version] {
			continue
		}
		if err := s.applyMigration(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) appliedVersions(ctx context.Context) (map[int]bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx,
		schemaHasMigrationsSQL).Scan(&n)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	applied := map[int]bool{}
	if n == 0 {
		return applied, nil
	}
	rows, err := s.db.QueryContext(ctx, schemaVersionsSQL)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read schema_migrations: %w", err)
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

func (s *Store) applyMigration(ctx context.Context, m backend.Migration) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, schemaMigrationsCreateSQL); err != nil {
			return err
		}
		var done int
		if err := tx.QueryRowContext(ctx, schemaMigrationDoneSQL, m.Version).Scan(&done); err != nil {
			return err
		}
		if done > 0 {
			return nil // another process got there first
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, schemaMigrationRecordSQL,
			m.Version, m.Name, nanos(s.nowUTC()))
		return err
	})
	if err != nil {
		return fmt.Errorf("apply migration %s: %w", m.Name, err)
	}
	return nil
}
