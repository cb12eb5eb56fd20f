package app

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/permission"
)

// modeSource is one place a session's permission mode may come from.
type modeSource struct {
	mode, from string
	project    bool // a file inside the project, which arrives with a clone
}

// sessionMode picks the permission mode: the session's own (flag or API),
// then the config files and environment, then Claude Code's defaultMode,
// else normal. A project file may not switch on trust: that would let a
// cloned repository run any command unasked, so such a setting is skipped
// with a warning, as a repository cannot approve its own MCP servers.
func sessionMode(stored string, cfg *config.Config, perm permLayers, claude permission.ClaudeLayers, cwd string, getenv func(string) string, warn io.Writer) (permission.Mode, error) {
	sources := []modeSource{{mode: stored, from: "the session"}}
	if v := getenv("TANDEM_PERMISSION_MODE"); v != "" {
		sources = append(sources, modeSource{mode: v, from: "TANDEM_PERMISSION_MODE"})
	}
	for i := len(cfg.Layers) - 1; i >= 0; i-- { // later layers win
		if l := cfg.Layers[i]; l.Mode != "" {
			sources = append(sources, modeSource{mode: l.Mode, from: l.File, project: l.Scope != "user"})
			break
		}
	}
	sources = append(sources,
		modeSource{mode: perm.project.Mode, from: perm.projectFile, project: true},
		modeSource{mode: perm.user.Mode, from: perm.userFile},
		modeSource{mode: claude.DefaultMode, from: claude.DefaultModeFile, project: isProjectClaudeFile(claude.DefaultModeFile, cwd)},
	)
	for _, s := range sources {
		if s.mode == "" {
			continue
		}
		m, err := permission.ParseMode(s.mode)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.from, err)
		}
		if s.project && m == permission.Trust {
			fmt.Fprintf(warn, "tandem: ignoring permission mode %q from %s: a project file cannot switch on trust mode; pass --permission-mode trust or set it in your user config\n", s.mode, s.from)
			continue
		}
		return m, nil
	}
	return permission.Normal, nil
}

// isProjectClaudeFile reports whether f is the project's .claude/settings
// file (rather than the user's ~/.claude/settings.json).
func isProjectClaudeFile(f, cwd string) bool {
	return f != "" && filepath.Dir(f) == filepath.Join(cwd, ".claude")
}
