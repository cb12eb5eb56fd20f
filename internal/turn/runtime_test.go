package turn

import (
	"strings"
	"testing"
)

func TestParseRuntime(t *testing.T) {
	for _, n := range RuntimeNames() {
		if got, err := ParseRuntime(string(n)); err != nil || got != n {
			t.Errorf("ParseRuntime(%q) = %q, %v", n, got, err)
		}
	}
	for _, bad := range []string{"", "Native", "claude", "claude_code"} {
		_, err := ParseRuntime(bad)
		if err == nil || !strings.Contains(err.Error(), "use native, claude-code or auto") {
			t.Errorf("ParseRuntime(%q): %v, want an error listing the runtimes", bad, err)
		}
	}
}
