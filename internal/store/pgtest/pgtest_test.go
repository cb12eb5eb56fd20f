package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

var pg = pgtest.New()

func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }

// The test's schema is reachable as the app role, which is not a
// superuser and owns it (so it can create tables there), and the server
// listens on loopback only.
func TestDatabase(t *testing.T) {
	url := pg.Database(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var super bool
	var user, listen string
	if err := c.QueryRow(ctx, `SELECT rolsuper, current_user, current_setting('listen_addresses') FROM pg_roles WHERE rolname = current_user`).Scan(&super, &user, &listen); err != nil {
		t.Fatal(err)
	}
	if super || user != pgtest.AppUser || listen != "127.0.0.1" {
		t.Fatalf("superuser %v, user %q, listen_addresses %q", super, user, listen)
	}
	if _, err := c.Exec(ctx, `CREATE TABLE x (a int)`); err != nil {
		t.Fatalf("the app role cannot create a table in its database: %v", err)
	}
	// Each test gets its own schema: another does not see the table.
	other := pg.Database(t)
	c2, err := pgx.Connect(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	var seen bool
	if err := c2.QueryRow(ctx, `SELECT to_regclass('x') IS NOT NULL`).Scan(&seen); err != nil || seen {
		t.Fatalf("a second test's schema sees the first's table (%v)", err)
	}
}
