package permit

import (
	"strings"
	"testing"
)

func TestModesParseBack(t *testing.T) {
	for _, m := range Modes() {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
		if got, err := ParseMode(strings.ToUpper(string(m))); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", strings.ToUpper(string(m)), got, err)
		}
		// Claude Code's name of each mode reads back as the same mode.
		if got, err := ParseMode(ClaudeName(m)); err != nil || got != m {
			t.Errorf("ClaudeName(%q) = %q does not parse: %v", m, ClaudeName(m), err)
		}
	}
	_, err := ParseMode("yolo")
	if err == nil || !strings.Contains(err.Error(), "use "+ModeList()) || ModeList() != "explore, normal, acceptEdits, trust or dontAsk" {
		t.Errorf("error %v must list %s", err, ModeList())
	}
	if m, err := ParseMode(""); err != nil || m != Normal {
		t.Errorf("empty mode: %q, %v", m, err)
	}
}
