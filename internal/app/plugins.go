package app

import (
	"fmt"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/plugin"
	"github.com/tandem-agent/tandem/internal/session"
)

// Plugins is the manager of the user's marketplaces and installed plugins
// (in tandem's data folder), for `tandem plugin`.
func (a *App) Plugins() *plugin.Manager {
	return &plugin.Manager{DataDir: a.Paths.DataDir}
}

// pluginSet loads the plugins a session runs with: the installed ones
// that are enabled, and the folders given for this process
// (Options.PluginDirs). A host that asked for none of the user's files
// (--setting-sources without "user") gets only the latter, as Claude Code
// loads only its --plugin-dir plugins then.
func (a *App) pluginSet() *plugin.Set {
	var installed *plugin.Manager
	if a.userClaudeSettings() {
		installed = a.Plugins()
	}
	return plugin.LoadSet(installed, a.opts.PluginDirs)
}

// reportPlugins says, as the session starts, which plugins did not load
// and which parts of a plugin were left out (the rest run).
func reportPlugins(a *App, l *session.Live, ps *plugin.Set) {
	for _, p := range ps.Problems() {
		l.Events().Emit(event.Event{Type: event.Status, Message: "warning: " + p, Meta: map[string]any{"notice": "plugins"}})
		fmt.Fprintf(a.opts.Stderr, "tandem: warning: %s\n", p)
	}
}

// pluginPaths are the folders a write to must always ask about: the
// installed plugins' (tandem's data folder's plugins/) and each loaded
// plugin's, whose hooks and servers run in later sessions.
func pluginPaths(a *App, ps *plugin.Set) []string {
	out := []string{filepath.Join(a.Paths.DataDir, "plugins")}
	if ps != nil {
		for _, p := range ps.Plugins {
			out = append(out, p.Dir)
		}
	}
	return out
}

// cliPluginDirs are the session's plugins' folders for the Claude Code
// CLI's --plugin-dir: the same set the native runtime loads (enabled
// installed plugins and the run's --plugin-dir), none of a disabled one.
func cliPluginDirs(s *Settings) []string {
	if s == nil || s.plugins == nil {
		return nil
	}
	out := make([]string, 0, len(s.plugins.Plugins))
	for _, p := range s.plugins.Plugins {
		out = append(out, p.Dir)
	}
	return out
}
