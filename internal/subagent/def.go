// Package subagent runs sub-agents: child agent loops with their own
// conversation (a child session), started by the Agent tool or a
// `context: fork` skill. It also reads agent definitions in Claude Code's
// format (.claude/agents/*.md, ~/.claude/agents/*.md, the "agents" section
// of tandem's config). A child never has more power than its parent: the
// same permission checker (mode, rules, asker), a tool list that can only
// narrow, and a depth limit.
package subagent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/skills"
)

// Built-in agent names, as Claude Code names them.
const (
	GeneralPurpose = "general-purpose"
	Explore        = "Explore"
)

// Def is one agent definition.
type Def struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Plugin is the plugin that brought the agent ("" for none).
	Plugin string `json:"plugin,omitempty"`
	// Prompt is the agent's system prompt (the file's body).
	Prompt string `json:"-"`
	// Tools limits the child to these tools (rule syntax, names only
	// matter); empty means every tool the parent has.
	Tools           []string `json:"tools,omitempty"`
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	// Model is "inherit" (or empty), an alias (sonnet, opus, haiku, fast)
	// or a "provider/model" spec.
	Model string `json:"model,omitempty"`
	// PermissionMode can only make the child stricter than its parent.
	PermissionMode permission.Mode `json:"permission_mode,omitempty"`
	MaxTurns       int             `json:"max_turns,omitempty"`
	// Skills are preloaded into the child's instructions.
	Skills []string `json:"skills,omitempty"`
	Effort string   `json:"effort,omitempty"`
	// Isolation is "worktree" for an agent that works in its own git
	// worktree (isolation.go), "" for one that works in the session's
	// folder.
	Isolation string       `json:"isolation,omitempty"`
	Scope     skills.Scope `json:"scope"`
	File      string       `json:"file,omitempty"`
}

// Builtins are the agents every session has.
func Builtins() []*Def {
	return []*Def{
		{Name: GeneralPurpose, Scope: skills.ScopeBuiltin,
			Description: "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries, use this agent to perform the search for you.",
			Prompt:      "You are a sub-agent. Complete the task you are given using the tools available, then reply with a concise report of what you found or did: that report is all the caller sees."},
		{Name: Explore, Scope: skills.ScopeBuiltin, Model: "fast", PermissionMode: permission.Explore,
			Tools:       []string{"Read", "Glob", "Grep", "Bash", "WebFetch", "WebSearch"},
			Description: "Fast agent specialized for exploring codebases, read-only. Use it to find files by patterns, search code for keywords, or answer questions about the codebase. Say how thorough it should be: \"quick\", \"medium\" or \"very thorough\".",
			Prompt:      "You are a read-only exploration sub-agent. Search and read to answer the question you are given; you cannot change anything. Reply with a concise, specific answer (paths and line numbers where they help): that reply is all the caller sees."},
	}
}

// ParseFile reads one agent file (.claude/agents/NAME.md) found in the
// place from: a project file through projectfile (a link out of the
// repository, a FIFO or an oversized file is an error naming it).
func ParseFile(file string, from skills.Place) (*Def, []skills.Warning, error) {
	data, err := from.Read(file)
	if err != nil {
		return nil, nil, err // it names the file
	}
	d, warns, err := parseFile(file, from.Scope, data)
	if err == nil && from.Plugin != "" {
		d.Name, d.Plugin = from.Named(d.Name), from.Plugin
	}
	return d, warns, err
}

// parseFile decodes an agent file's bytes.
func parseFile(file string, scope skills.Scope, data []byte) (*Def, []skills.Warning, error) {
	fm, body, err := skills.SplitFrontmatter(file, data)
	if err != nil {
		return nil, nil, err
	}
	d := &Def{Scope: scope, File: file, Prompt: strings.TrimSpace(body)}
	d.Name = fm.String("name")
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(file), ".md")
	}
	if strings.ContainsAny(d.Name, ": /") {
		return nil, fm.Warnings, fmt.Errorf("field \"name\": %q may not contain ':', '/' or spaces (agent skipped)", d.Name)
	}
	d.Description = fm.String("description")
	if d.Description == "" {
		return nil, fm.Warnings, fmt.Errorf("field \"description\": missing; the model picks an agent by its description (agent skipped)")
	}
	d.Tools = fm.List("tools")
	d.DisallowedTools = fm.List("disallowedTools")
	d.Model = fm.String("model")
	if m := fm.String("permissionMode"); m != "" {
		pm, err := permission.ParseMode(m)
		if err != nil {
			fm.Warnings = append(fm.Warnings, skills.Warning{File: file, Field: "permissionMode", Msg: err.Error()})
		} else {
			d.PermissionMode = pm
		}
	}
	d.MaxTurns = fm.Int("maxTurns")
	d.Skills = fm.List("skills")
	d.Effort = fm.OneOf("effort", skills.Efforts...)
	d.Isolation = fm.OneOf("isolation", Isolations...)
	return d, fm.Warnings, nil
}

// ConfigDef is an agent in tandem's config, in the shape of Claude Code's
// --agents JSON.
type ConfigDef struct {
	Description     string   `json:"description"`
	Prompt          string   `json:"prompt"`
	Tools           []string `json:"tools,omitempty"`
	DisallowedTools []string `json:"disallowedTools,omitempty"`
	Model           string   `json:"model,omitempty"`
	PermissionMode  string   `json:"permissionMode,omitempty"`
	MaxTurns        int      `json:"maxTurns,omitempty"`
	Skills          []string `json:"skills,omitempty"`
	Effort          string   `json:"effort,omitempty"`
	Isolation       string   `json:"isolation,omitempty"`
}

// ParseConfig decodes the "agents" config section ({name: definition}).
// Problems name the file and the field.
func ParseConfig(raw json.RawMessage, file string) ([]*Def, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var m map[string]ConfigDef
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("config %s: field \"agents\": %v (want {\"name\": {\"description\": ..., \"prompt\": ...}})", file, err)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*Def
	for _, n := range names {
		c := m[n]
		field := "agents." + n
		if c.Description == "" || c.Prompt == "" {
			return nil, fmt.Errorf("config %s: field %q: description and prompt are required", file, field)
		}
		d := &Def{Name: n, Description: c.Description, Prompt: c.Prompt, Tools: c.Tools, DisallowedTools: c.DisallowedTools,
			Model: c.Model, MaxTurns: c.MaxTurns, Skills: c.Skills, Effort: c.Effort, Scope: skills.ScopeConfig, File: file}
		if err := CheckIsolation(c.Isolation); err != nil {
			return nil, fmt.Errorf("config %s: field %q: %v", file, field+".isolation", err)
		}
		d.Isolation = c.Isolation
		if c.PermissionMode != "" {
			pm, err := permission.ParseMode(c.PermissionMode)
			if err != nil {
				return nil, fmt.Errorf("config %s: field %q: %v", file, field+".permissionMode", err)
			}
			d.PermissionMode = pm
		}
		out = append(out, d)
	}
	return out, nil
}

// Config converts a definition back to Claude Code's --agents shape (for
// the claude-code runtime).
func (d *Def) Config() ConfigDef {
	c := ConfigDef{Description: d.Description, Prompt: d.Prompt, Tools: d.Tools, DisallowedTools: d.DisallowedTools,
		Model: d.Model, MaxTurns: d.MaxTurns, Skills: d.Skills, Effort: d.Effort, Isolation: d.Isolation}
	// Only a mode that narrows is passed on: tandem's engine judges every
	// call of the CLI's sub-agents anyway, and a looser mode must not
	// reach the CLI even by mistake.
	if d.PermissionMode == permission.Explore || d.PermissionMode == permission.DontAsk {
		c.PermissionMode = permission.ClaudeName(d.PermissionMode)
	}
	return c
}

// Catalog is the agents a session offers.
type Catalog struct {
	Defs     []*Def           `json:"agents"`
	Notices  []string         `json:"notices,omitempty"`
	Warnings []skills.Warning `json:"warnings,omitempty"`
}

// Load collects agents, strongest first: config-defined (like --agents),
// then the *.md files of each place in order (the project's, the user's,
// the plugins'), then the built-ins. A name seen twice keeps the first,
// with a notice. A place's Dir may also be one agent file (a plugin's).
func Load(configDefs []*Def, places ...skills.Place) *Catalog {
	c := &Catalog{}
	seen := map[string]*Def{}
	add := func(d *Def) {
		if prev := seen[d.Name]; prev != nil {
			if d.Scope != skills.ScopeBuiltin {
				c.Notices = append(c.Notices, fmt.Sprintf("agent %q: using the %s one (%s) over the %s one (%s)", d.Name, prev.Scope, where(prev), d.Scope, where(d)))
			}
			return
		}
		seen[d.Name] = d
		c.Defs = append(c.Defs, d)
	}
	for _, d := range configDefs {
		add(d)
	}
	for _, pl := range places {
		if pl.Dir == "" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(pl.Dir, "*.md"))
		if strings.HasSuffix(pl.Dir, ".md") {
			files = []string{pl.Dir}
		}
		for _, f := range files {
			d, warns, err := ParseFile(f, pl)
			c.Warnings = append(c.Warnings, warns...)
			if err != nil {
				c.Warnings = append(c.Warnings, skills.Warning{File: f, Msg: err.Error()})
				continue
			}
			add(d)
		}
	}
	for _, d := range Builtins() {
		add(d)
	}
	return c
}

func where(d *Def) string {
	if d.File != "" {
		return d.File
	}
	return "built in"
}

// Get returns the named agent ("" is general-purpose).
func (c *Catalog) Get(name string) *Def {
	if name == "" {
		name = GeneralPurpose
	}
	for _, d := range c.Defs {
		if d.Name == name || strings.EqualFold(d.Name, name) {
			return d
		}
	}
	return nil
}

// Names lists the agent names.
func (c *Catalog) Names() []string {
	var out []string
	for _, d := range c.Defs {
		out = append(out, d.Name)
	}
	return out
}

// Custom are the agents that are not built in.
func (c *Catalog) Custom() []*Def {
	var out []*Def
	for _, d := range c.Defs {
		if d.Scope != skills.ScopeBuiltin {
			out = append(out, d)
		}
	}
	return out
}
