package permit

import (
	"fmt"
	"strings"
)

// Modes lists the modes a user chooses from (flags, config, the API's and
// the web UI's list), strictest first. AskEdits is left out: it is how the
// Claude Code CLI protocol reads Claude Code's "default".
func Modes() []Mode { return []Mode{Explore, Normal, AcceptEdits, Trust, DontAsk} }

// claudeAliases are Claude Code's mode names read as tandem's own modes
// (tandem's CLI reads "default" as normal), lower-cased.
var claudeAliases = map[string]Mode{"plan": Explore, "default": Normal, "bypasspermissions": Trust}

// ParseMode reads a mode name, in any case: one of Modes, askEdits, or
// Claude Code's default, plan, bypassPermissions. Empty is normal.
func ParseMode(s string) (Mode, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	if key == "" {
		return Normal, nil
	}
	for _, m := range append(Modes(), AskEdits) {
		if key == strings.ToLower(string(m)) {
			return m, nil
		}
	}
	if m, ok := claudeAliases[key]; ok {
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use %s (Claude Code's default, plan and bypassPermissions are accepted too)", s, ModeList())
}

// ModeList is Modes as help and error texts write them
// ("explore, normal, acceptEdits, trust or dontAsk").
func ModeList() string {
	ms := Modes()
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = string(m)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// ClaudeName is the Claude Code name of a mode, for what tandem hands to
// or reports as the Claude Code CLI (system/init, an agent's
// permissionMode).
func ClaudeName(m Mode) string {
	switch m {
	case AskEdits, Normal:
		return "default"
	case Explore:
		return "plan"
	case Trust:
		return "bypassPermissions"
	}
	return string(m)
}
