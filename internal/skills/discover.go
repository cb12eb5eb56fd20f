package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/projectfile"
)

// Places are the folders searched, strongest first. Build them with
// DefaultPlaces; tests may pass their own.
type Places struct {
	Skills   []Place
	Commands []Place
}

// Place is one folder and the scope its files get.
type Place struct {
	Dir   string
	Scope Scope
	// Root is the project folder a project place belongs to: its files
	// are read through projectfile, so each must resolve inside the
	// repository holding Root (Dir when empty). The user's own places
	// have none; a plugin's place has its plugin's folder, so its files
	// stay inside the plugin.
	Root string
	// Plugin names the plugin a place belongs to (internal/plugin): its
	// skills, commands and agents are named "plugin:name", as Claude Code
	// names them, and listed with it.
	Plugin string
}

// named is name under the place's plugin ("plugin:name"), or name.
func (pl Place) named(name string) string {
	if pl.Plugin == "" {
		return name
	}
	return pl.Plugin + ":" + name
}

// Named is name as the place offers it (its plugin's prefix added).
func (pl Place) Named(name string) string { return pl.named(name) }

// Read reads one file of the place (a skill, command or agent file): a
// project's or a plugin's file through projectfile (inside the repository
// or plugin, no credential, regular, capped), the user's own with only its
// type and size checked.
func (pl Place) Read(file string) ([]byte, error) {
	if pl.Scope != ScopeProject && pl.Root == "" {
		return projectfile.ReadOwn(file, projectfile.ExtensionLimit)
	}
	root := pl.Root
	if root == "" {
		root = pl.Dir
	}
	return projectfile.Read(root, file, projectfile.ExtensionLimit)
}

// DefaultPlaces are Claude Code's folders plus the Agent Skills standard's
// .agents and tandem's own (internal/places, which owns the list, so the
// permission engine protects each one): project first (.claude, .agents, .tandem under
// the working folder), then the user's (~/.claude, ~/.agents, tandem's
// configuration folder).
func DefaultPlaces(cwd, home, configDir string) Places {
	var p Places
	add := func(list *[]Place, dir string, scope Scope) {
		if dir != "" {
			pl := Place{Dir: dir, Scope: scope}
			if scope == ScopeProject {
				pl.Root = cwd
			}
			*list = append(*list, pl)
		}
	}
	for _, root := range []struct {
		dir   string
		list  []places.Place
		scope Scope
	}{{cwd, places.Project(), ScopeProject}, {home, places.Home(), ScopeUser}, {configDir, places.InConfigDir(), ScopeConfig}} {
		if root.dir == "" {
			continue
		}
		for _, d := range places.Paths(root.dir, root.list, places.Skills) {
			add(&p.Skills, d, root.scope)
		}
		for _, d := range places.Paths(root.dir, root.list, places.Commands) {
			add(&p.Commands, d, root.scope)
		}
	}
	return p
}

// Catalog is what one working folder offers.
type Catalog struct {
	Skills   []*Skill   `json:"skills"`
	Commands []*Command `json:"commands"`
	// Notices say which of two same-named files won.
	Notices  []string  `json:"notices,omitempty"`
	Warnings []Warning `json:"warnings,omitempty"`
}

// Load discovers skills and commands. It never fails: unreadable folders
// and bad files become warnings.
func Load(p Places) *Catalog {
	c := &Catalog{}
	seen := map[string]*Skill{}
	for _, pl := range p.Skills {
		for _, dir := range skillDirs(pl.Dir, c) {
			s, warns, err := ParseSkill(dir, pl)
			if err == nil && pl.Plugin != "" {
				s.Name, s.Plugin = pl.named(s.Name), pl.Plugin
			}
			c.Warnings = append(c.Warnings, warns...)
			if err != nil {
				c.Warnings = append(c.Warnings, Warning{File: filepath.Join(dir, "SKILL.md"), Msg: err.Error() + " (skill skipped)"})
				continue
			}
			if prev := seen[s.Name]; prev != nil {
				c.Notices = append(c.Notices, fmt.Sprintf("skill %q: using the %s one (%s) over the %s one (%s)", s.Name, prev.Scope, prev.File, s.Scope, s.File))
				continue
			}
			seen[s.Name] = s
			c.Skills = append(c.Skills, s)
		}
	}
	c.loadCommands(p.Commands)
	sort.SliceStable(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	sort.SliceStable(c.Commands, func(i, j int) bool { return c.Commands[i].Name < c.Commands[j].Name })
	return c
}

// skillDirs lists the folders under dir holding a SKILL.md.
func skillDirs(dir string, c *Catalog) []string {
	if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil {
		return []string{dir} // a place that is one skill (a plugin's "skills" entry)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !os.IsNotExist(err) {
			c.Warnings = append(c.Warnings, Warning{File: dir, Msg: err.Error()})
		}
		return nil
	}
	var out []string
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			// A symlinked skill folder is followed, as Claude Code does.
			if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
				continue
			}
		}
		if _, err := os.Stat(filepath.Join(sub, "SKILL.md")); err == nil {
			out = append(out, sub)
		}
	}
	return out
}

func (c *Catalog) loadCommands(places []Place) {
	seen := map[string]*Command{}
	// User-invocable skills are commands too, and win over a commands file
	// of the same name (as in Claude Code).
	for _, s := range c.Skills {
		if !s.UserInvocable {
			continue
		}
		if IsBuiltin(s.Name) {
			c.Warnings = append(c.Warnings, Warning{File: s.File, Field: "name", Msg: fmt.Sprintf("/%s is a built-in command; the skill is not offered as /%s", s.Name, s.Name)})
			continue
		}
		cmd := &Command{Name: s.Name, Description: s.Description, ArgumentHint: s.ArgumentHint, AllowedTools: s.AllowedTools,
			Model: s.Model, Scope: s.Scope, File: s.File, Kind: "skill", Body: s.Body, Plugin: s.Plugin, skill: s}
		seen[s.Name] = cmd
		c.Commands = append(c.Commands, cmd)
	}
	for _, pl := range places {
		_ = filepath.WalkDir(pl.Dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if !os.IsNotExist(err) {
					c.Warnings = append(c.Warnings, Warning{File: path, Msg: err.Error()})
				}
				return nil
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
				return nil
			}
			rel, _ := filepath.Rel(pl.Dir, path)
			if rel == "." {
				rel = d.Name() // a place that is one command file (a plugin's)
			}
			name := pl.named(strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(rel, ".md")), "/", ":"))
			if IsBuiltin(name) {
				c.Warnings = append(c.Warnings, Warning{File: path, Msg: fmt.Sprintf("/%s is a built-in command; this file is ignored", name)})
				return nil
			}
			cmd, warns, err := ParseCommand(path, name, pl)
			c.Warnings = append(c.Warnings, warns...)
			if err != nil {
				c.Warnings = append(c.Warnings, Warning{File: path, Msg: err.Error() + " (command skipped)"})
				return nil
			}
			if prev := seen[name]; prev != nil {
				c.Notices = append(c.Notices, fmt.Sprintf("command /%s: using the %s %s (%s) over the %s file (%s)", name, prev.Scope, prev.Kind, prev.File, pl.Scope, path))
				return nil
			}
			cmd.Plugin = pl.Plugin
			seen[name] = cmd
			c.Commands = append(c.Commands, cmd)
			return nil
		})
	}
}

// Skill returns the named skill.
func (c *Catalog) Skill(name string) *Skill {
	if c == nil {
		return nil
	}
	name = strings.TrimPrefix(name, "/")
	for _, s := range c.Skills {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Command returns the named command.
func (c *Catalog) Command(name string) *Command {
	if c == nil {
		return nil
	}
	for _, cmd := range c.Commands {
		if cmd.Name == name {
			return cmd
		}
	}
	return nil
}

// ModelSkills are the skills the model may invoke.
func (c *Catalog) ModelSkills() []*Skill {
	if c == nil {
		return nil
	}
	var out []*Skill
	for _, s := range c.Skills {
		if s.ModelVisible() {
			out = append(out, s)
		}
	}
	return out
}

// Dirs are the skill folders, which the model may read (read-only) even
// outside the workspace.
func (c *Catalog) Dirs() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, s := range c.Skills {
		out = append(out, s.Dir)
	}
	return out
}

// Expand turns a `/name args` prompt into its command's text. ok is false
// when the prompt is not a custom command (plain text, a built-in, or an
// unknown name, which the runtime then sees unchanged).
func (c *Catalog) Expand(prompt string) (cmd *Command, text string, ok bool) {
	name, args, isCmd := ParsePrompt(prompt)
	if !isCmd || IsBuiltin(name) {
		return nil, "", false
	}
	cmd = c.Command(name)
	if cmd == nil {
		return nil, "", false
	}
	return cmd, cmd.Prompt(args), true
}
