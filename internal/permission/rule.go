package permission

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Action is what a rule does to the calls it matches.
type Action string

const (
	ActionAllow Action = "allow"
	ActionAsk   Action = "ask"
	ActionDeny  Action = "deny"
)

// strength orders actions: deny beats ask beats allow, whatever layer
// each rule came from.
func (a Action) strength() int {
	switch a {
	case ActionDeny:
		return 3
	case ActionAsk:
		return 2
	case ActionAllow:
		return 1
	}
	return 0
}

// Rule is one permission rule. Permission is a tool name ("Bash", "Edit",
// "mcp__server__tool"), "*", or a glob over tool names ("mcp__server__*");
// Pattern is a glob over the command (Bash), the path (file tools), the
// URL or `domain:host` (WebFetch); empty matches every call of the tool.
type Rule struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern,omitempty"`
	Action     Action `json:"action"`
	// Source names where the rule came from ("user ~/.claude/settings.json",
	// "flag --allowedTools", "session"), for messages.
	Source string `json:"-"`
	// Base is the folder that `/path` patterns are relative to (the folder
	// holding the settings file's .claude or .tandem folder).
	Base string `json:"-"`
}

// String is the rule in Claude Code syntax: `Bash(npm test:*)`, `Edit`.
func (r Rule) String() string {
	if r.Pattern == "" || r.Pattern == "*" {
		return r.Permission
	}
	return r.Permission + "(" + r.Pattern + ")"
}

// Validate names a malformed field.
func (r Rule) Validate() error {
	if r.Permission == "" {
		return fmt.Errorf("rule %q: permission is empty: name a tool such as \"Bash\" or \"*\"", r.String())
	}
	switch r.Action {
	case ActionAllow, ActionAsk, ActionDeny:
	default:
		return fmt.Errorf("rule %q: action %q is not one of allow, ask, deny", r.String(), r.Action)
	}
	return nil
}

// ParseRule reads Claude Code rule syntax: `Tool`, `Tool(specifier)`,
// `Bash(npm run test:*)`, `Read(./secrets/**)`, `WebFetch(domain:x.com)`.
func ParseRule(s string, action Action) (Rule, error) {
	s = strings.TrimSpace(s)
	r := Rule{Action: action}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		r.Permission = s
	} else {
		if !strings.HasSuffix(s, ")") {
			return Rule{}, fmt.Errorf("rule %q: missing closing parenthesis: write Tool(pattern)", s)
		}
		r.Permission = strings.TrimSpace(s[:open])
		r.Pattern = s[open+1 : len(s)-1]
	}
	if r.Permission == "" || strings.ContainsAny(r.Permission, " ()") {
		return Rule{}, fmt.Errorf("rule %q: %q is not a tool name: write Tool or Tool(pattern)", s, r.Permission)
	}
	if r.Pattern == "*" {
		r.Pattern = ""
	}
	return r, r.Validate()
}

// matchesTool reports whether the rule's permission covers tool. A
// `Read` rule covers every tool whose declaration (tool.FileAccessor,
// found by files) reads a file, an `Edit` rule every tool whose
// declaration writes one, whatever its name, as Claude Code defines them
// ("Edit rules apply to all built-in tools that edit files"); files may
// be nil when no file tool is in question.
func (r Rule) matchesTool(tool string, files fileLookup) bool {
	p := r.Permission
	switch {
	case p == "*" || p == tool:
		return true
	case (p == "Task" && tool == "Agent") || (p == "Agent" && tool == "Task"):
		return true // the sub-agent tool's old and new names
	case p == "Read" || p == "Edit":
		read, write := fileKinds(files, tool)
		return p == "Read" && read || p == "Edit" && write
	case strings.HasPrefix(p, "mcp__") && strings.Count(p, "__") == 1 && strings.HasPrefix(tool, p+"__"):
		return true // `mcp__server` covers every tool of that server
	case strings.ContainsAny(p, "*?["):
		ok, _ := path.Match(p, tool)
		return ok
	}
	return false
}

// matchesFile reports whether the rule's permission covers one path a
// file tool declares (tool.FileAccessor): `Read(...)` covers every read,
// `Edit(...)` every write, whatever the tool's name, as Claude Code
// defines them; a rule naming the tool itself covers it too.
func (r Rule) matchesFile(tool string, write bool) bool {
	switch r.Permission {
	case "Read":
		return !write || tool == "Read"
	case "Edit":
		return write || tool == "Edit"
	}
	return r.matchesTool(tool, nil)
}

// bashPatternRegexp turns a command pattern into a regexp: `*` matches any
// text; a trailing ` *` or `:*` makes the rest optional at a word
// boundary (`ls *` matches `ls` and `ls -la`, not `lsof`).
func bashPatternRegexp(pattern string) *regexp.Regexp {
	tail := ""
	switch {
	case strings.HasSuffix(pattern, ":*"):
		pattern, tail = strings.TrimSuffix(pattern, ":*"), "(?: .*)?"
	case strings.HasSuffix(pattern, " *"):
		pattern, tail = strings.TrimSuffix(pattern, " *"), "(?: .*)?"
	}
	parts := strings.Split(pattern, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	re, err := regexp.Compile("(?s)^" + strings.Join(parts, ".*") + tail + "$")
	if err != nil {
		return regexp.MustCompile(`^\b$`) // matches nothing
	}
	return re
}

func matchCommand(pattern, command string) bool {
	if pattern == "" {
		return true
	}
	return bashPatternRegexp(pattern).MatchString(command)
}

// pathGlob turns a path pattern into an absolute glob, as Claude Code
// documents: `//abs` is absolute, `~/x` is under home, `/x` is relative to
// the rule's base folder, `./x` and `x/y` to the working folder, and a
// pattern without a slash matches that name at any depth.
func pathGlob(pattern, base, workDir, home string) string {
	switch {
	case strings.HasPrefix(pattern, "//"):
		return path.Clean(pattern[1:])
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		return path.Join(filepath.ToSlash(home), pattern[1:])
	case strings.HasPrefix(pattern, "/"):
		if base == "" {
			base = workDir
		}
		return path.Join(filepath.ToSlash(base), pattern)
	case strings.HasPrefix(pattern, "./"):
		return path.Join(filepath.ToSlash(workDir), pattern)
	case !strings.Contains(pattern, "/"):
		return "**/" + pattern
	}
	return path.Join(filepath.ToSlash(workDir), pattern)
}

// matchPath reports whether abs (or a folder holding it) matches the
// rule's path pattern.
func (r Rule) matchPath(abs, workDir, home string) bool {
	if r.Pattern == "" {
		return true
	}
	glob := pathGlob(r.Pattern, r.Base, workDir, home)
	p := filepath.ToSlash(abs)
	for {
		if ok, _ := doublestar.Match(glob, p); ok {
			return true
		}
		parent := path.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// matchURL handles WebFetch patterns: `domain:example.com` (also matches
// subdomains when written `domain:*.example.com`) or a glob over the URL.
func matchURL(pattern, raw string) bool {
	if pattern == "" {
		return true
	}
	if host, ok := strings.CutPrefix(pattern, "domain:"); ok {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		ok, _ := path.Match(strings.ToLower(host), strings.ToLower(u.Hostname()))
		return ok
	}
	return matchCommand(pattern, raw)
}
