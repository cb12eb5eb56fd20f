// Package outputstyle finds Claude Code's output styles: the built-ins
// (Default, Explanatory, Learning), the user's and a trusted project's
// `.claude/output-styles/*.md` and the plugins' (internal/plugin), each a
// Markdown file with frontmatter name, description and
// keep-coding-instructions. The chosen one changes the system prompt
// (internal/prompt, Builder.Style).
package outputstyle

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/skills"
)

// Builtins are Claude Code's built-in styles tandem has.
func Builtins() []*prompt.Style {
	return []*prompt.Style{
		{Name: "Default", Description: "tandem's own system prompt, for software engineering", Source: "builtin", KeepCoding: true},
		{Name: "Explanatory", Description: "Explains its implementation choices and the codebase as it works", Source: "builtin", KeepCoding: true, Prompt: explanatory},
		{Name: "Learning", Description: "Pauses to have you write small pieces of code yourself, for hands-on practice", Source: "builtin", KeepCoding: true, Prompt: learning},
	}
}

const explanatory = `You help with software engineering tasks and, as you do, teach the user about the codebase and your choices.

## Insights
Before and after writing code, give brief educational explanations of implementation choices, in this form:
"` + "`★ Insight ─────────────────────────────────────`" + `
[2-3 key educational points]
` + "`─────────────────────────────────────────────────`" + `"
Focus on what is specific to this codebase or the code you just wrote, not general programming concepts. Insights go in the conversation, not in the code.`

const learning = `You help with software engineering tasks and help the user learn through hands-on practice.

## Learning by doing
When a task has a piece of meaningful design (business logic, an algorithm, error handling with trade-offs) of 2-10 lines, ask the user to write it: add a TODO(human) comment where it goes, then stop and ask, saying what to write, why it matters and what to consider. Do the routine parts yourself. After they write it, share one insight about it.

## Insights
Give brief educational explanations of your implementation choices, in this form:
"` + "`★ Insight ─────────────────────────────────────`" + `
[2-3 key educational points]
` + "`─────────────────────────────────────────────────`" + `"`

// Catalog is the styles one session can choose from.
type Catalog struct {
	Styles   []*prompt.Style
	Warnings []skills.Warning
}

// Load reads the styles of places, strongest first (a name seen twice
// keeps the first, case ignored); the built-ins come first of all.
func Load(places []skills.Place) *Catalog {
	c := &Catalog{Styles: Builtins()}
	seen := map[string]bool{}
	for _, s := range c.Styles {
		seen[strings.ToLower(s.Name)] = true
	}
	for _, pl := range places {
		if pl.Dir == "" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(pl.Dir, "*.md"))
		sort.Strings(files)
		for _, f := range files {
			s, warns, err := parse(f, pl)
			c.Warnings = append(c.Warnings, warns...)
			if err != nil {
				c.Warnings = append(c.Warnings, skills.Warning{File: f, Msg: err.Error() + " (style skipped)"})
				continue
			}
			if seen[strings.ToLower(s.Name)] {
				continue
			}
			seen[strings.ToLower(s.Name)] = true
			c.Styles = append(c.Styles, s)
		}
	}
	return c
}

func parse(file string, pl skills.Place) (*prompt.Style, []skills.Warning, error) {
	data, err := pl.Read(file)
	if err != nil {
		return nil, nil, err
	}
	fm, body, err := skills.SplitFrontmatter(file, data)
	if err != nil {
		return nil, nil, err
	}
	s := &prompt.Style{Name: fm.String("name"), Description: fm.String("description"), Prompt: strings.TrimSpace(body), Source: file, Plugin: pl.Plugin}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(file), ".md")
	}
	s.Name = pl.Named(s.Name)
	s.KeepCoding, _ = fm.Bool("keep-coding-instructions")
	return s, fm.Warnings, nil
}

// Find returns the named style (case ignored; "" is Default).
func (c *Catalog) Find(name string) (*prompt.Style, error) {
	if name == "" {
		name = prompt.DefaultStyle
	}
	var names []string
	for _, s := range c.Styles {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("output style %q does not exist: choose one of %s (or add .claude/output-styles/%s.md)", name, strings.Join(names, ", "), name)
}
