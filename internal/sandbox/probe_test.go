package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// Where the sandbox cannot be built, Usable says so (and New fails): a
// config that says on never runs commands unconfined.
func TestUsableElsewhere(t *testing.T) {
	for _, c := range []Capabilities{{OS: "windows"}, {OS: "freebsd"}, {OS: "darwin"}} {
		err := c.Usable()
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "--no-sandbox") || c.Mode() != "unavailable" {
			t.Errorf("%s: %v (mode %s); want unavailable naming --no-sandbox", c.OS, err, c.Mode())
		}
	}
	if c := (Capabilities{OS: "darwin", SandboxExec: "/usr/bin/sandbox-exec"}); c.Usable() != nil {
		t.Errorf("macOS with sandbox-exec: %v", c.Usable())
	}
}
