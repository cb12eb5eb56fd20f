package app

import (
	"cmp"
	"fmt"

	"github.com/tandem-agent/tandem/internal/outputstyle"
	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/plugin"
	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/skills"
)

// outputStyles are the styles a session in cwd may use: the built-ins,
// the user's (~/.claude/output-styles), a trusted project's
// (.claude/output-styles; an untrusted folder's are not read: a style
// rewrites the system prompt) and the plugins'.
func (a *App) outputStyles(cwd string, trusted bool, ps *plugin.Set) *outputstyle.Catalog {
	var pls []skills.Place
	if trusted && a.projectFiles() {
		pls = append(pls, skills.Place{Dir: places.Path(cwd, places.Project(), places.OutputStyles), Scope: skills.ScopeProject, Root: cwd})
	}
	if home := a.home(); home != "" && a.userClaudeSettings() {
		pls = append(pls, skills.Place{Dir: places.Path(home, places.Home(), places.OutputStyles), Scope: skills.ScopeUser})
	}
	pls = append(pls, ps.StyleDirs()...)
	return outputstyle.Load(pls)
}

// chooseStyle is the style Claude Code's "outputStyle" setting names (the
// last settings file that sets it wins: local over project over user).
// A name no style has is a warning, and the session runs with none.
func (a *App) chooseStyle(s *Settings, f *folder) *prompt.Style {
	name := ""
	for _, cf := range f.claude {
		name = cmp.Or(cf.OutputStyle, name)
	}
	if name == "" {
		return nil
	}
	cat := a.outputStyles(s.Cwd, s.Trusted, s.plugins)
	for _, w := range cat.Warnings {
		fmt.Fprintf(a.opts.Stderr, "tandem: warning: %s\n", w)
	}
	st, err := cat.Find(name)
	if err != nil {
		fmt.Fprintf(a.opts.Stderr, "tandem: warning: %v\n", err)
		return nil
	}
	return st
}
