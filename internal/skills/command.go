package skills

import (
	"strconv"
	"strings"
	"unicode"
)

// BuiltinCommands are the slash commands tandem itself answers. A file
// with one of these names never replaces it (the file gets a warning).
var BuiltinCommands = []string{"compact", "clear", "help", "model", "mode", "rewind", "mcp", "sandbox", "tasks", "output-style", "permissions", "cost", "status", "memory", "init", "resume", "exit", "quit"}

// IsBuiltin reports whether name is one of BuiltinCommands.
func IsBuiltin(name string) bool {
	for _, b := range BuiltinCommands {
		if b == name {
			return true
		}
	}
	return false
}

// Command is a custom slash command: a `.claude/commands/*.md` file, or a
// user-invocable skill.
type Command struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	ArgumentHint string   `json:"argument_hint,omitempty"`
	AllowedTools []string `json:"allowed_tools,omitempty"`
	Model        string   `json:"model,omitempty"`
	Scope        Scope    `json:"scope"`
	File         string   `json:"file"`
	// Kind is "command" for a commands file, "skill" for a skill.
	Kind string `json:"kind"`
	// Plugin is the plugin that brought the command ("" for none).
	Plugin string `json:"plugin,omitempty"`
	Body   string `json:"-"`
	skill  *Skill
}

// Skill returns the skill behind a skill command (nil for command files).
func (c *Command) Skill() *Skill { return c.skill }

// ParseCommand reads one command file; name is derived from its path
// ("frontend/review.md" is "frontend:review", as Claude Code names it),
// found in the place from.
func ParseCommand(file, name string, from Place) (*Command, []Warning, error) {
	data, err := from.Read(file)
	if err != nil {
		return nil, nil, err // it names the file
	}
	return parseCommand(file, name, from.Scope, data)
}

// parseCommand decodes a command file's bytes.
func parseCommand(file, name string, scope Scope, data []byte) (*Command, []Warning, error) {
	fm, body, err := SplitFrontmatter(file, data)
	if err != nil {
		return nil, nil, err
	}
	c := &Command{Name: name, Scope: scope, File: file, Kind: "command", Body: strings.TrimSpace(body)}
	c.Description = fm.String("description")
	if c.Description == "" {
		c.Description = firstParagraph(c.Body)
	}
	c.ArgumentHint = fm.Hint("argument-hint")
	c.AllowedTools = toolList(fm, "allowed-tools")
	c.Model = fm.String("model")
	return c, fm.Warnings, nil
}

// Prompt is what `/name args` becomes.
func (c *Command) Prompt(args string) string {
	if c.skill != nil {
		return c.skill.Prompt(args)
	}
	return Substitute(c.Body, args, nil)
}

// ParsePrompt splits "/name rest" into the command name and its
// arguments; ok is false for prompts that are not a slash command.
func ParsePrompt(prompt string) (name, args string, ok bool) {
	p := strings.TrimLeftFunc(prompt, unicode.IsSpace)
	if !strings.HasPrefix(p, "/") || len(p) < 2 {
		return "", "", false
	}
	head, rest, _ := strings.Cut(p[1:], " ")
	if nl := strings.IndexByte(head, '\n'); nl >= 0 {
		head, rest = head[:nl], p[1+nl+1:]
	}
	if head == "" || strings.ContainsAny(head, "/\\") {
		return "", "", false // a path such as /etc/hosts, not a command
	}
	return head, strings.TrimSpace(rest), true
}

// Substitute fills a command or skill template: $ARGUMENTS is the whole
// argument text, $ARGUMENTS[N] and $N (1-based, as Claude Code) single
// words, $name a named argument (from the `arguments` list, by position).
// A template that mentions no argument gets them appended, so arguments
// are never silently lost.
func Substitute(body, args string, names []string) string {
	words := splitArgs(args)
	used := false
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '$' {
			b.WriteByte(body[i])
			continue
		}
		rest := body[i+1:]
		switch {
		case strings.HasPrefix(rest, "ARGUMENTS["):
			end := strings.IndexByte(rest, ']')
			if n, err := strconv.Atoi(rest[len("ARGUMENTS["):max(end, 0)]); end > 0 && err == nil {
				b.WriteString(word(words, n))
				i += end + 1
				used = true
				continue
			}
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(args)
			i += len("ARGUMENTS")
			used = true
			continue
		case len(rest) > 0 && rest[0] >= '1' && rest[0] <= '9':
			j := 1
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(rest[:j])
			b.WriteString(word(words, n-1))
			i += j
			used = true
			continue
		default:
			if n, l := namedArg(rest, names); l > 0 {
				b.WriteString(word(words, n))
				i += l
				used = true
				continue
			}
		}
		b.WriteByte('$')
	}
	out := b.String()
	if !used && strings.TrimSpace(args) != "" {
		out = strings.TrimRight(out, "\n") + "\n\nARGUMENTS: " + args
	}
	return out
}

func namedArg(rest string, names []string) (index, length int) {
	for i, n := range names {
		if n == "" || !strings.HasPrefix(rest, n) {
			continue
		}
		if l := len(n); l == len(rest) || !isIdent(rest[l]) {
			return i, l
		}
	}
	return 0, 0
}

func isIdent(c byte) bool {
	return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func word(words []string, i int) string {
	if i < 0 || i >= len(words) {
		return ""
	}
	return words[i]
}

// splitArgs splits on spaces, keeping "quoted text" together.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	quote := rune(0)
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, in = r, true
		case quote == 0 && unicode.IsSpace(r):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
