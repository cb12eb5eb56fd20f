package storeopen

import (
	"context"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/postgres"
)

// openPostgres opens a PostgreSQL store (internal/store/postgres).
func openPostgres(ctx context.Context, rawURL string, _ Options) (store.Store, error) {
	return postgres.Open(ctx, rawURL, postgres.Options{})
}
