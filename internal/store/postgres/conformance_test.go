package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storetest"
)

// The PostgreSQL backend passes the conformance suite on the private
// server; each handle is its own pool on the test's database, as another
// replica would open it.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.DB {
		url := pg.Database(t)
		return func(now func() time.Time) store.Store {
			s, err := Open(context.Background(), url, Options{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	})
}
