package runtimes

import (
	"strings"
	"testing"
)

func TestParseRuntime(t *testing.T) {
	for _, n := range Names() {
		if got, err := Parse(string(n)); err != nil || got != n {
			t.Errorf("Parse(%q) = %q, %v", n, got, err)
		}
	}
	for _, bad := range []string{"", "Native", "claude", "claude_code"} {
		_, err := Parse(bad)
		if err == nil || !strings.Contains(err.Error(), "use native, claude-code or auto") {
			t.Errorf("Parse(%q): %v, want an error listing the runtimes", bad, err)
		}
	}
}
