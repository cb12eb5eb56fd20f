package storeopen

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		kind Kind
		path string
	}{
		{"", SQLite, ""},
		{"/data/tandem.db", SQLite, "/data/tandem.db"},
		{"rel/tandem.db", SQLite, "rel/tandem.db"},
		{"sqlite:/data/t.db", SQLite, "/data/t.db"},
		{"sqlite:///data/t.db", SQLite, "/data/t.db"},
		{"postgres://u@h/db", Postgres, ""},
		{"postgresql://u:pw@h:5432/db?sslmode=require", Postgres, ""},
	} {
		kind, path, err := Parse(tt.in)
		if err != nil || kind != tt.kind || path != tt.path {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", tt.in, kind, path, err, tt.kind, tt.path)
		}
	}
	for _, bad := range []string{"mysql://u:secret@h/db", "sqlite:", "sqlite://"} {
		_, _, err := Parse(bad)
		if err == nil {
			t.Errorf("Parse(%q) accepted", bad)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("Parse(%q) error shows the password: %v", bad, err)
		}
	}
}

// A SQLite URL opens that file; an empty one the default file.
func TestOpenSQLite(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	def := filepath.Join(dir, "default.db")
	for url, file := range map[string]string{"": def, "sqlite:" + filepath.Join(dir, "a.db"): filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db"): filepath.Join(dir, "b.db")} {
		st, err := Open(ctx, url, Options{DefaultFile: def})
		if err != nil {
			t.Fatalf("Open(%q): %v", url, err)
		}
		info, err := st.Info(ctx)
		st.Close()
		if err != nil || info.Backend != "sqlite" || info.Location != file || info.Schema == 0 || info.Schema != info.SchemaLatest {
			t.Errorf("Open(%q): %+v, %v", url, info, err)
		}
		if _, err := os.Stat(file); err != nil {
			t.Errorf("Open(%q) made no file %s: %v", url, file, err)
		}
	}
}

// A postgres URL never becomes a SQLite file, and a failure to open it
// (no backend in this build, or no server on the port) keeps the password
// out of the error.
func TestOpenPostgresURLIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := Open(context.Background(), "postgres://tandem:hunter2@127.0.0.1:1/tandem?connect_timeout=5", Options{DefaultFile: filepath.Join(dir, "x.db")})
	if err == nil {
		t.Fatal("opened a PostgreSQL store on a closed port")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error shows the password: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files made for a postgres URL: %v", entries)
	}
}

func TestRedact(t *testing.T) {
	if got := Redact("postgres://u:pw@h/db"); strings.Contains(got, "pw@") || !strings.Contains(got, "u:") {
		t.Errorf("Redact = %q", got)
	}
	if got := Redact("/a/b.db"); got != "/a/b.db" {
		t.Errorf("Redact(path) = %q", got)
	}
}
