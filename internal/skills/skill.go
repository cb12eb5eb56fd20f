package skills

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/permission"
)

// Scope says where a skill, command or agent file was found. Project files
// win over user files on a name clash.
type Scope string

const (
	ScopeProject Scope = "project"
	ScopeUser    Scope = "user"
	ScopeConfig  Scope = "config" // tandem's own configuration
	ScopeBuiltin Scope = "builtin"
	ScopePlugin  Scope = "plugin" // an installed plugin's (internal/plugin)
)

// Context values of a skill.
const (
	ContextInline = "inline"
	ContextFork   = "fork"
)

// Efforts are the accepted effort values.
var Efforts = []string{"low", "medium", "high", "max"}

// Skill is one SKILL.md, as Claude Code reads it.
type Skill struct {
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	WhenToUse       string   `json:"when_to_use,omitempty"`
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	ArgumentHint    string   `json:"argument_hint,omitempty"`
	Arguments       []string `json:"arguments,omitempty"`
	Model           string   `json:"model,omitempty"`
	Effort          string   `json:"effort,omitempty"`
	Context         string   `json:"context"` // inline | fork
	// Plugin is the plugin that brought the skill ("" for none).
	Plugin string `json:"plugin,omitempty"`
	Agent  string `json:"agent,omitempty"`
	// DisableModelInvocation hides the skill from the model: only the
	// user can run it (as /name).
	DisableModelInvocation bool `json:"disable_model_invocation,omitempty"`
	// UserInvocable false keeps it out of the / commands.
	UserInvocable bool   `json:"user_invocable"`
	Scope         Scope  `json:"scope"`
	Dir           string `json:"dir"`  // the skill's folder (files beside SKILL.md)
	File          string `json:"file"` // SKILL.md itself
	Body          string `json:"-"`
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_:.-]*$`) })

// ParseSkill reads dir/SKILL.md, a skill folder found in the place from.
// A file that cannot be used at all (unreadable, a FIFO, a link out of the
// repository, over the size limit) returns an error (the caller turns it
// into a warning); field problems come back as warnings with a usable
// skill.
func ParseSkill(dir string, from Place) (*Skill, []Warning, error) {
	file := filepath.Join(dir, "SKILL.md")
	data, err := from.Read(file)
	if err != nil {
		return nil, nil, err // it names the file
	}
	return parseSkill(dir, file, from.Scope, data)
}

// parseSkill decodes a SKILL.md's bytes.
func parseSkill(dir, file string, scope Scope, data []byte) (*Skill, []Warning, error) {
	fm, body, err := SplitFrontmatter(file, data)
	if err != nil {
		return nil, nil, err
	}
	s := &Skill{Scope: scope, Dir: dir, File: file, Body: strings.TrimSpace(body), Context: ContextInline, UserInvocable: true}
	s.Name = fm.String("name")
	base := filepath.Base(dir)
	switch {
	case s.Name == "":
		s.Name = strings.ToLower(base)
	case !namePattern().MatchString(s.Name):
		fm.warn("name", "%q is not a skill name (lowercase letters, digits and hyphens); using the folder name %q", s.Name, strings.ToLower(base))
		s.Name = strings.ToLower(base)
	}
	s.Description = fm.String("description")
	if s.Description == "" {
		fm.warn("description", "missing: the model decides when to use a skill from its description; the first paragraph of the body is used instead")
		s.Description = firstParagraph(s.Body)
	}
	s.WhenToUse = fm.String("when_to_use")
	s.AllowedTools = toolList(fm, "allowed-tools")
	s.DisallowedTools = toolList(fm, "disallowed-tools")
	s.ArgumentHint = fm.Hint("argument-hint")
	s.Arguments = fm.List("arguments")
	s.Model = fm.String("model")
	s.Effort = fm.OneOf("effort", Efforts...)
	if c := fm.OneOf("context", ContextInline, ContextFork); c != "" {
		s.Context = c
	}
	s.Agent = fm.String("agent")
	s.DisableModelInvocation, _ = fm.Bool("disable-model-invocation")
	if v, set := fm.Bool("user-invocable"); set {
		s.UserInvocable = v
	}
	return s, fm.Warnings, nil
}

// toolList reads a tool list and checks each entry is rule syntax
// ("Read", "Bash(git status:*)"); bad entries are dropped with a warning.
func toolList(fm *Frontmatter, key string) []string {
	var out []string
	for _, item := range fm.List(key) {
		if _, err := permission.ParseRule(item, permission.ActionAllow); err != nil {
			fm.warn(key, "%v", err)
			continue
		}
		out = append(out, item)
	}
	return out
}

// ModelVisible reports whether the model may invoke the skill.
func (s *Skill) ModelVisible() bool { return !s.DisableModelInvocation }

// Prompt is the skill's body ready to hand to the model: the folder its
// relative paths refer to, then the body with the arguments filled in.
func (s *Skill) Prompt(args string) string {
	body := Substitute(s.Body, args, s.Arguments)
	body = strings.ReplaceAll(body, "${CLAUDE_SKILL_DIR}", s.Dir)
	return fmt.Sprintf("Base directory for this skill: %s\n\n%s", s.Dir, body)
}

func firstParagraph(body string) string {
	for _, para := range strings.Split(body, "\n\n") {
		p := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(para), "# "))
		if p != "" {
			return truncate(strings.Join(strings.Fields(p), " "), 250)
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 1
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
