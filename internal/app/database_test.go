package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The store's URL: Options.Database (serve --database) over
// TANDEM_DATABASE_URL over the user config's "database", else the data
// folder's tandem.db.
func TestDatabaseChoice(t *testing.T) {
	dir := t.TempDir()
	fromFlag, fromEnv, fromUser := filepath.Join(dir, "flag.db"), filepath.Join(dir, "env.db"), filepath.Join(dir, "user.db")
	location := func(a *App) string {
		t.Helper()
		info, err := a.Store.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return info.Location
	}
	a, _ := testApp(t, map[string]string{"TANDEM_DATABASE_URL": fromEnv}, func(o *Options) { o.Database = fromFlag })
	if got := location(a); got != fromFlag {
		t.Errorf("flag and environment: %s, want %s", got, fromFlag)
	}
	a, _ = testApp(t, map[string]string{"TANDEM_DATABASE_URL": "sqlite:" + fromEnv})
	if got := location(a); got != fromEnv {
		t.Errorf("environment: %s, want %s", got, fromEnv)
	}
	a, _ = testApp(t, nil, func(o *Options) {
		o.ConfigFile = filepath.Join(dir, "config.json")
		if err := os.WriteFile(o.ConfigFile, []byte(`{"database": "`+fromUser+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if got := location(a); got != fromUser {
		t.Errorf("user config: %s, want %s", got, fromUser)
	}
	a, _ = testApp(t, nil)
	if got := location(a); got != a.Paths.DBFile() {
		t.Errorf("default: %s, want %s", got, a.Paths.DBFile())
	}
}
