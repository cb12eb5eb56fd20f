package storeopen

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/store"
)

// openPostgres opens a PostgreSQL store. This build has no PostgreSQL
// backend: the PostgreSQL backend (internal/store/postgres) replaces this
// function's body with its opener.
func openPostgres(_ context.Context, rawURL string, _ Options) (store.Store, error) {
	return nil, fmt.Errorf("database %s: this build has no PostgreSQL backend; use a SQLite file (unset TANDEM_DATABASE_URL, --database or the `database` setting) or a tandem built with PostgreSQL", Redact(rawURL))
}
