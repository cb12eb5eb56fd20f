package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded migration files in version order. A file is
// named NNNN_description.sql; NNNN is its version.
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
	latest := all[len(all)-1].version
	for v := range applied {
		if v > latest {
			return fmt.Errorf("database schema version %d is newer than this tandem supports (%d): upgrade tandem", v, latest)
		}
	}
	for _, m := range all {
		if applied[m.version] {
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

func (s *Store) applyMigration(ctx context.Context, m migration) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, schemaMigrationsCreateSQL); err != nil {
			return err
		}
		var done int
		if err := tx.QueryRowContext(ctx, schemaMigrationDoneSQL, m.version).Scan(&done); err != nil {
			return err
		}
		if done > 0 {
			return nil // another process got there first
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, schemaMigrationRecordSQL,
			m.version, m.name, nanos(s.nowUTC()))
		return err
	})
	if err != nil {
		return fmt.Errorf("apply migration %s: %w", m.name, err)
	}
	return nil
}
