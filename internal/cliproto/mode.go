package cliproto

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/permission"
)

// modes maps Claude Code's permission modes to the engine's, with their
// Claude Code meaning: "default" asks before edits, unlike tandem's own
// normal mode.
var modes = map[string]permission.Mode{
	"default":           permission.AskEdits,
	"acceptEdits":       permission.AcceptEdits,
	"plan":              permission.Explore,
	"bypassPermissions": permission.Trust,
	"dontAsk":           permission.DontAsk,
	// "auto" lets Claude Code's classifier decide; tandem asks instead.
	"auto": permission.AskEdits,
}

// ParseMode reads a Claude Code permission mode (tandem's own names are
// accepted too).
func ParseMode(s string) (permission.Mode, error) {
	if m, ok := modes[s]; ok {
		return m, nil
	}
	if m, err := permission.ParseMode(s); err == nil && s != "" {
		return m, nil
	}
	return "", fmt.Errorf("permission mode %q: use default, acceptEdits, plan, bypassPermissions or dontAsk", s)
}

// modeName is the Claude Code name of an engine mode, as system/init and
// set_permission_mode report it.
func modeName(m permission.Mode) string { return permission.ClaudeName(m) }
