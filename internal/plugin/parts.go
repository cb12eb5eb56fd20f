package plugin

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/subagent"
)

// Set is the plugins a session runs with, loaded once: what each loader
// (skills and commands, agents, hooks, MCP servers, output styles) adds
// comes from its methods, so no loader knows of plugins beyond a place's
// Plugin name.
type Set struct {
	Plugins []*Plugin
	// Errors are the plugins that could not be loaded (the rest are).
	Errors []error
}

// LoadSet loads the installed plugins (installed may be nil: none) and
// the folders given for one run (--plugin-dir), which win over an
// installed plugin of the same name. Nothing here fails the session: a
// broken plugin is an error in Set.Errors.
func LoadSet(installed *Manager, dirs []string) *Set {
	s := &Set{}
	seen := map[string]bool{}
	for _, d := range dirs {
		p, err := Load(d, "--plugin-dir")
		if err != nil {
			s.Errors = append(s.Errors, fmt.Errorf("--plugin-dir %s not loaded: %w", d, err))
			continue
		}
		if seen[p.Name] {
			s.Errors = append(s.Errors, fmt.Errorf("--plugin-dir %s: another plugin named %q was given first; this one is not loaded", d, p.Name))
			continue
		}
		seen[p.Name] = true
		s.Plugins = append(s.Plugins, p)
	}
	if installed != nil {
		ps, errs := installed.Enabled()
		s.Errors = append(s.Errors, errs...)
		for _, p := range ps {
			if seen[p.Name] {
				continue // the run's own folder of the same plugin wins
			}
			seen[p.Name] = true
			s.Plugins = append(s.Plugins, p)
		}
	}
	return s
}

// places makes a loader's places from each plugin's folders of a part.
func (s *Set) places(part func(*Plugin) []string) []skills.Place {
	if s == nil {
		return nil
	}
	var out []skills.Place
	for _, p := range s.Plugins {
		for _, d := range part(p) {
			out = append(out, skills.Place{Dir: d, Scope: skills.ScopePlugin, Root: p.Dir, Plugin: p.Name})
		}
	}
	return out
}

// SkillPlaces are the plugins' skill folders.
func (s *Set) SkillPlaces() []skills.Place {
	return s.places(func(p *Plugin) []string { return p.Skills })
}

// CommandPlaces are the plugins' command folders and files.
func (s *Set) CommandPlaces() []skills.Place {
	return s.places(func(p *Plugin) []string { return p.Commands })
}

// AgentPlaces are the plugins' agent folders and files.
func (s *Set) AgentPlaces() []skills.Place {
	return s.places(func(p *Plugin) []string { return p.Agents })
}

// StyleDirs are the plugins' output-style folders, with their plugin.
func (s *Set) StyleDirs() []skills.Place {
	return s.places(func(p *Plugin) []string { return p.OutputStyles })
}

// Hooks are the plugins' hooks, merged.
func (s *Set) Hooks() hooks.Config {
	out := hooks.Config{}
	if s == nil {
		return out
	}
	for _, p := range s.Plugins {
		out = hooks.Merge(out, p.Hooks)
	}
	return out
}

// MCP are the plugins' MCP servers.
func (s *Set) MCP() mcp.Servers {
	out := mcp.Servers{}
	if s == nil {
		return out
	}
	for _, p := range s.Plugins {
		for n, c := range p.MCP {
			out[n] = c
		}
	}
	return out
}

// Problems are the load errors and the plugins' warnings, one line each.
func (s *Set) Problems() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, e := range s.Errors {
		out = append(out, e.Error())
	}
	for _, p := range s.Plugins {
		out = append(out, p.Warnings...)
	}
	return out
}

// Summary says what a plugin enables, for the user who installs it (the
// consent is given knowing this) and for `tandem plugin list`.
func (p *Plugin) Summary() string {
	var parts []string
	add := func(kind string, names []string) {
		if len(names) > 0 {
			parts = append(parts, kind+" "+strings.Join(names, ", "))
		}
	}
	one := &Set{Plugins: []*Plugin{p}}
	cat := skills.Load(skills.Places{Skills: one.SkillPlaces(), Commands: one.CommandPlaces()})
	var cmds, sks []string
	for _, c := range cat.Commands {
		if c.Kind == "command" {
			cmds = append(cmds, "/"+c.Name)
		}
	}
	for _, sk := range cat.Skills {
		sks = append(sks, sk.Name)
	}
	add("commands", cmds)
	add("skills", sks)
	var agents []string
	for _, d := range subagent.Load(nil, one.AgentPlaces()...).Custom() {
		agents = append(agents, d.Name)
	}
	add("agents", agents)
	var evs []string
	for ev := range p.Hooks {
		evs = append(evs, ev)
	}
	sort.Strings(evs)
	add("hooks (run commands on your machine) on", evs)
	var servers []string
	for n, c := range p.MCP {
		what := c.Command
		if what == "" {
			what = c.URL
		}
		servers = append(servers, n+" ("+what+")")
	}
	sort.Strings(servers)
	add("MCP servers", servers)
	add("output styles in", p.OutputStyles)
	if len(parts) == 0 {
		return "nothing tandem uses"
	}
	return strings.Join(parts, "; ")
}
