// Package places owns the locations tandem loads instructions, settings,
// skills, commands, agents, hooks and plugins from. The loaders
// (internal/skills, internal/subagent, internal/prompt, internal/config,
// the permission engine's Claude Code settings) find their files here, and
// the permission engine protects every one of them: a write there always
// asks, in every mode, and is never learned by "allow always", since what
// is written there runs or instructs a later session. A new location added
// here for a loader is protected the moment it is added.
package places

import (
	"path/filepath"
	"strings"
)

// Kind is what tandem loads from a place.
type Kind string

const (
	Instructions Kind = "instructions" // AGENTS.md, CLAUDE.md
	Config       Kind = "config"       // tandem's config.json
	Settings     Kind = "settings"     // Claude Code's settings.json
	Skills       Kind = "skills"
	Commands     Kind = "commands"
	Agents       Kind = "agents"
	Hooks        Kind = "hooks"
	Plugins      Kind = "plugins"
	MCP          Kind = "mcp" // .mcp.json
	OutputStyles Kind = "output-styles"
	// Folder is a whole folder whose contents configure an agent (.claude,
	// .tandem): what its owner adds to it later is covered too.
	Folder Kind = "folder"
)

// Place is one location, relative to the folder it is found in.
type Place struct {
	Kind Kind
	// Rel is slash-separated ("/"-free for a file found in every folder).
	Rel string
}

// Path is the place under root.
func (p Place) Path(root string) string {
	return filepath.Join(root, filepath.FromSlash(p.Rel))
}

// Project are the places in a working folder, strongest first within a
// kind. Instruction files are read in every folder from the repository
// root down to the working folder, so they are matched by name anywhere.
func Project() []Place {
	return []Place{
		{Instructions, "AGENTS.md"}, {Instructions, "CLAUDE.md"}, {Instructions, "CLAUDE.local.md"},
		{Folder, ".claude"}, {Folder, ".tandem"}, {Folder, ".agents"}, {Folder, ".claude-plugin"},
		{Config, ".tandem/config.json"},
		{Settings, ".claude/settings.json"}, {Settings, ".claude/settings.local.json"},
		{Skills, ".claude/skills"}, {Skills, ".agents/skills"}, {Skills, ".tandem/skills"},
		{Commands, ".claude/commands"}, {Commands, ".tandem/commands"},
		{Agents, ".claude/agents"},
		{Hooks, ".claude/hooks"},
		{Plugins, ".claude/plugins"}, {Plugins, ".claude-plugin"},
		{OutputStyles, ".claude/output-styles"},
		{MCP, ".mcp.json"},
	}
}

// Home are the places in the user's home folder (Claude Code's and the
// Agent Skills standard's).
func Home() []Place {
	return []Place{
		{Folder, ".claude"}, {Folder, ".agents"},
		{Instructions, ".claude/CLAUDE.md"},
		{Settings, ".claude/settings.json"},
		{Skills, ".claude/skills"}, {Skills, ".agents/skills"},
		{Commands, ".claude/commands"},
		{Agents, ".claude/agents"},
		{Plugins, ".claude/plugins"},
		{OutputStyles, ".claude/output-styles"},
	}
}

// InConfigDir are the places in tandem's configuration folder. The folder
// itself is not one: with TANDEM_HOME it also holds the data folder.
func InConfigDir() []Place {
	return []Place{
		{Config, "config.json"},
		{Instructions, "AGENTS.md"},
		{Skills, "skills"}, {Commands, "commands"},
	}
}

// Path is the first place of kind k in list, under root ("" when none).
func Path(root string, list []Place, k Kind) string {
	if ps := Paths(root, list, k); len(ps) > 0 {
		return ps[0]
	}
	return ""
}

// Paths are the places of kind k in list, under root, in the list's order.
func Paths(root string, list []Place, k Kind) []string {
	var out []string
	for _, p := range list {
		if p.Kind == k {
			out = append(out, p.Path(root))
		}
	}
	return out
}

// Names are the Rel of the places of kind k in list (for instruction
// files: the names read in each folder).
func Names(list []Place, k Kind) []string {
	var out []string
	for _, p := range list {
		if p.Kind == k {
			out = append(out, p.Rel)
		}
	}
	return out
}

// Roots are the folders outside any project whose places are loaded.
type Roots struct {
	Home, ConfigDir string
}

// Match returns the place p (absolute and clean, symbolic links resolved
// by the caller) lies in: a project place anywhere along the path (a
// session may start in any folder, and instructions are read in every
// folder down to it), or a place under the home or configuration folder.
func (r Roots) Match(p string) (Place, bool) {
	p = filepath.Clean(p)
	for _, root := range []struct {
		dir  string
		list []Place
	}{{r.ConfigDir, InConfigDir()}, {r.Home, Home()}} {
		if root.dir == "" {
			continue
		}
		for _, pl := range root.list {
			if within(pl.Path(root.dir), p) {
				return pl, true
			}
		}
	}
	parts := inWorktree(strings.Split(filepath.ToSlash(p), "/"))
	for _, pl := range Project() {
		rel := strings.Split(pl.Rel, "/")
		for i := 0; i+len(rel) <= len(parts); i++ {
			if equalParts(parts[i:i+len(rel)], rel) {
				return pl, true
			}
		}
	}
	return Place{}, false
}

// Worktrees is where git worktrees of a repository go (Claude Code's
// place, internal/worktree's Folder): each one below it is a checkout of
// its own, whose files are a workspace's files, not settings of the
// repository that holds it.
const Worktrees = ".claude/worktrees"

// inWorktree is the part of a path below the innermost worktree it lies
// in (.claude/worktrees/NAME/...), which Match judges as it would in that
// worktree's own folder: its AGENTS.md and .claude are protected, its
// other files are not. The worktrees folder and each worktree's folder
// itself stay protected as part of .claude.
func inWorktree(parts []string) []string {
	wt := strings.Split(Worktrees, "/")
	for i := len(parts) - len(wt) - 2; i >= 0; i-- {
		if equalParts(parts[i:i+len(wt)], wt) {
			return parts[i+len(wt)+1:]
		}
	}
	return parts
}

// equalParts compares path components; the file systems tandem runs on
// may ignore case (macOS, Windows), so case is ignored: `.Claude/Skills`
// is the same folder there.
func equalParts(a, b []string) bool {
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	root = filepath.Clean(root)
	if strings.EqualFold(root, p) {
		return true
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
