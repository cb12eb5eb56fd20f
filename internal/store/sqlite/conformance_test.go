package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storetest"
)

// The SQLite backend passes the conformance suite; each handle is its own
// Store on the test's file, as another process would open it.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.DB {
		return handles(t, filepath.Join(t.TempDir(), "tandem.db"))
	}, conformanceOptions())
}

// handles opens Stores on the file at path, closed when the test ends.
func handles(t *testing.T, path string) storetest.DB {
	return func(now func() time.Time) store.Store {
		s, err := Open(path, Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}
