package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Long output spills into the session's own folder.
func TestSpillGoesToTheSessionFolder(t *testing.T) {
	env, _ := newTestEnv(t)
	res := run(t, context.Background(), NewBash(), env, map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' x"})
	p, _ := res.Meta["spill_path"].(string)
	if filepath.Dir(p) != filepath.Join(env.DataDir, "tool-output", env.SessionID) {
		t.Errorf("spill file %q is not in the session's folder", p)
	}
}

// On a full disk the result says so and names the folder to clean.
func TestSpillOnFullDiskSaysWhatToDelete(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	c := newCollector(t.TempDir(), "s1", "bash", 100)
	c.create = func() (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }
	c.Write([]byte(strings.Repeat("x", 1000)))
	text, truncated, _ := c.finish()
	if !truncated || !strings.Contains(text, "disk is full") || !strings.Contains(text, "tandem sessions delete") {
		t.Errorf("%q", text)
	}
}
