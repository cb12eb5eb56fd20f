package storecopy

import (
	"context"
	"fmt"
	"os"

	"github.com/tandem-agent/tandem/internal/store/postgres"
	"github.com/tandem-agent/tandem/internal/store/sqlite"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
)

// Migrate copies the SQLite file at dbPath (with the checkpoint contents
// under dataDir) into the PostgreSQL database at toURL, creating its
// tables when it has none: what `tandem sessions migrate --to URL` runs.
func Migrate(ctx context.Context, dbPath, dataDir, toURL string) (Report, error) {
	kind, _, err := storeopen.Parse(toURL)
	if err != nil {
		return Report{}, err
	}
	if kind != storeopen.Postgres {
		return Report{}, fmt.Errorf("--to %s: give a PostgreSQL URL (postgres://user:password@host:5432/database); sessions are copied from the SQLite file into it", storeopen.Redact(toURL))
	}
	if _, err := os.Stat(dbPath); err != nil {
		return Report{}, fmt.Errorf("no SQLite database to copy from: %w", err)
	}
	// Opening it brings its schema to this binary's level, which the copy
	// reads.
	src, err := sqlite.Open(dbPath, sqlite.Options{})
	if err != nil {
		return Report{}, err
	}
	src.Close()
	dst, err := postgres.Open(ctx, toURL, postgres.Options{})
	if err != nil {
		return Report{}, err
	}
	defer dst.Close()
	return Copy(ctx, Source{DBPath: dbPath, DataDir: dataDir}, dst)
}
