package postgres

import (
	"context"
	"os"
	"testing"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

var pg = pgtest.New()

func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }

// openTest opens a Store on a fresh database of the private server.
func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	url := pg.Database(t)
	s, err := Open(context.Background(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, url
}

func newSession(t testing.TB, s *Store, cwd string) store.Session {
	t.Helper()
	sess, err := s.CreateSession(context.Background(), store.Session{Cwd: cwd, Model: "m", Runtime: "native"})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func ptr[T any](v T) *T { return &v }
