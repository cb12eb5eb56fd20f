package permission

import (
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/secretpaths"
	"github.com/tandem-agent/tandem/internal/tool"
)

// judgeFiles judges a file tool's paths after resolving symlinks: rules
// first (deny, ask), then protected paths (writes always ask), then allow
// rules, then the mode and the workspace boundary.
func (e *Engine) judgeFiles(mode Mode, name string, accesses []tool.Access) verdict {
	v := verdict{action: ActionAllow}
	for _, a := range accesses {
		if a.Path == "" {
			continue // the tool itself reports the missing path
		}
		v.raise(e.judgePath(mode, name, a))
	}
	return v
}

// fileTool is what the named tool declares of the files it touches: the
// session's tools (and the Claude Code CLI's) first, then tandem's own, as
// EngineOptions.Tools finds them.
func (e *Engine) fileTool(name string) (tool.FileAccessor, bool) {
	return e.opts.Tools.Files(name)
}

// readOnly reports whether the named tool declares that it changes
// nothing (tool.ReadOnly): the caller's Request.ReadOnly may not know a
// tool the lookup knows (the claude-code runtime's calls to the CLI's
// WebSearch).
func (e *Engine) readOnly(name string) bool {
	t, ok := e.opts.Tools.Find(name)
	return ok && tool.IsReadOnly(t)
}

// contained reports whether the named tool declares that its calls touch
// no file and change nothing outside the session (tool.Contained).
func (e *Engine) contained(name string) bool {
	t, ok := e.opts.Tools.Find(name)
	return ok && tool.IsContained(t)
}

func (e *Engine) judgePath(mode Mode, name string, a tool.Access) verdict {
	p, write := a.Path, a.Write
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(e.opts.WorkDir, abs)
	}
	resolved, inside, err := ResolveInRoots(e.roots, p)
	if err != nil {
		return verdict{action: ActionAsk, reason: "could not resolve " + p + ": " + err.Error(), noAlways: true}
	}
	matches := func(r Rule) bool {
		return r.matchesFile(name, write) && (r.matchPath(resolved, e.opts.WorkDir, e.opts.HomeDir) || r.matchPath(filepath.Clean(abs), e.opts.WorkDir, e.opts.HomeDir))
	}
	r, ruled := e.strongest(matches)
	if ruled && r.Action == ActionDeny {
		return verdict{action: ActionDeny, rule: r.String(), reason: "denied by rule " + ruleLabel(r)}
	}
	if ruled && r.Action == ActionAsk {
		return verdict{action: ActionAsk, rule: r.String(), reason: "rule " + ruleLabel(r) + " asks", noAlways: true}
	}
	if write && mode == Explore {
		return verdict{action: ActionDeny, rule: "mode:explore", reason: "explore mode is read-only: " + name + " is not allowed"}
	}
	if _, why := e.protected(resolved, filepath.Clean(abs)); write && why != "" {
		return verdict{action: ActionAsk, reason: resolved + " is protected: " + why, noAlways: true}
	}
	if ruled {
		return verdict{action: ActionAllow, rule: r.String()}
	}
	perm := "Read"
	if write {
		perm = "Edit"
	}
	if !inside && !write && e.inReadRoot(resolved) {
		inside = true // a skill's own files: readable, never writable
	}
	if !inside {
		dir := resolved
		if !a.Folder {
			dir = filepath.Dir(resolved)
		}
		if !write && (secretpaths.Sensitive(resolved, e.opts.HomeDir) || secretpaths.Sensitive(abs, e.opts.HomeDir)) {
			// Its folder would cover the credential (or /proc/PID's
			// environ): only the file itself is learned.
			return verdict{action: ActionAsk, reason: resolved + " is outside the workspace and looks like a credential or a process's environment",
				suggest: []Rule{{Permission: perm, Pattern: "/" + filepath.ToSlash(resolved), Action: ActionAllow}}}
		}
		return verdict{action: ActionAsk, reason: resolved + " is outside the workspace",
			suggest: []Rule{{Permission: perm, Pattern: "/" + filepath.ToSlash(dir) + "/**", Action: ActionAllow}}}
	}
	if write && mode == AskEdits {
		return verdict{action: ActionAsk, reason: "this permission mode asks before every edit",
			suggest: []Rule{{Permission: perm, Pattern: "/" + filepath.ToSlash(resolved), Action: ActionAllow}}}
	}
	if !write && mode != Trust && (secretpaths.Sensitive(resolved, e.opts.HomeDir) || secretpaths.IsSecretFile(resolved, e.opts.SecretFiles)) {
		return verdict{action: ActionAsk, reason: resolved + " looks like a credential file",
			suggest: []Rule{{Permission: perm, Pattern: "/" + filepath.ToSlash(resolved), Action: ActionAllow}}}
	}
	return verdict{action: ActionAllow}
}

func (e *Engine) inReadRoot(resolved string) bool {
	for _, r := range e.opts.ReadRoots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		if within(filepath.Clean(r), resolved) {
			return true
		}
	}
	return false
}
