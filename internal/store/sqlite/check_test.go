package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
)

func TestCheckFindsCorruption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tandem.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if p, err := s.Check(ctx); err != nil || len(p) != 0 {
		t.Fatalf("fresh database: %v %v", p, err)
	}
	sess := newSession(t, s, "/p")
	big := strings.Repeat("some stored text ", 400)
	for i := 0; i < 200; i++ {
		if _, err := s.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock(big)}}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	corruptFile(t, path)
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	p, err := s.Check(ctx)
	if err != nil || len(p) == 0 {
		t.Fatalf("corrupted database passed the check: %v %v", p, err)
	}
	t.Logf("problems: %q", p)
}

// corruptFile overwrites the middle of a database file's later pages
// (message data, not the schema), as a bad disk or a torn copy would.
func corruptFile(t testing.TB, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	for off := fi.Size() / 2; off < fi.Size()-8192; off += 64 << 10 {
		if _, err := f.WriteAt(junk, off); err != nil {
			t.Fatal(err)
		}
	}
}
