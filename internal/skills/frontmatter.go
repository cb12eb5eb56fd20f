// Package skills reads Claude Code-compatible skills (SKILL.md folders) and
// custom commands (.claude/commands/*.md): discovery in project and user
// folders, YAML frontmatter with per-field warnings, the listing the model
// sees, and the expansion of a `/name args` prompt. A bad file never stops
// a session: it becomes a Warning naming the file and the field.
package skills

import (
	"bytes"
	"fmt"
	"github.com/tandem-agent/tandem/internal/permission"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Warning is a problem with one file; the file (or just the field) is
// skipped and everything else goes on.
type Warning struct {
	File  string `json:"file"`
	Field string `json:"field,omitempty"`
	Msg   string `json:"message"`
}

func (w Warning) String() string {
	if w.Field != "" {
		return fmt.Sprintf("%s: field %q: %s", w.File, w.Field, w.Msg)
	}
	return fmt.Sprintf("%s: %s", w.File, w.Msg)
}

// Frontmatter is a file's decoded YAML header. Its getters record a
// Warning for a value of the wrong type and return the zero value, so one
// bad field costs only that field.
type Frontmatter struct {
	File     string
	Fields   map[string]any
	Warnings []Warning
}

// SplitFrontmatter separates a leading `---` YAML block from the Markdown
// body. A file without one has empty fields and is all body.
func SplitFrontmatter(file string, data []byte) (*Frontmatter, string, error) {
	fm := &Frontmatter{File: file, Fields: map[string]any{}}
	text := string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") && text != "---" {
		return fm, text, nil
	}
	// A file holding only "---" opens a block it never closes; cutting
	// four bytes from it would panic.
	rest := strings.TrimPrefix(strings.TrimPrefix(text, "---"), "\n")
	end := -1
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		end = 0
	} else if i := strings.Index(rest, "\n---\n"); i >= 0 {
		end = i + 1
	} else if strings.HasSuffix(rest, "\n---") {
		end = len(rest) - len("---")
	}
	if end < 0 {
		return nil, "", fmt.Errorf("the frontmatter starting with --- on line 1 is never closed: end it with a line holding only ---")
	}
	head := rest[:end]
	body := strings.TrimPrefix(rest[end:], "---")
	body = strings.TrimPrefix(body, "\n")
	if strings.TrimSpace(head) != "" {
		if err := yaml.Unmarshal([]byte(head), &fm.Fields); err != nil {
			// Claude Code's own examples write `argument-hint: [a] [b]`,
			// which is not YAML; read such values as text, as it does.
			fm.Fields = map[string]any{}
			if err2 := yaml.Unmarshal([]byte(quoteLooseValues(head)), &fm.Fields); err2 != nil {
				return nil, "", fmt.Errorf("frontmatter is not valid YAML: %v", err)
			}
		}
		if fm.Fields == nil {
			fm.Fields = map[string]any{}
		}
	}
	return fm, body, nil
}

// quoteLooseValues quotes the values of top-level `key: value` lines so
// that text YAML would read as a flow list or mapping stays text.
func quoteLooseValues(head string) string {
	lines := strings.Split(head, "\n")
	for i, l := range lines {
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '-' {
			continue
		}
		key, val, ok := strings.Cut(l, ":")
		val = strings.TrimSpace(val)
		if !ok || val == "" || strings.ContainsAny(key, " \"'") {
			continue
		}
		if c := val[0]; c == '"' || c == '\'' || c == '|' || c == '>' {
			continue
		}
		if val[0] == '[' || val[0] == '{' || strings.Contains(val, ": ") || strings.Contains(val, " #") {
			lines[i] = key + ": " + strconv.Quote(val)
		}
	}
	return strings.Join(lines, "\n")
}

func (f *Frontmatter) warn(field, format string, args ...any) {
	f.Warnings = append(f.Warnings, Warning{File: f.File, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Has reports whether the field is present.
func (f *Frontmatter) Has(key string) bool {
	_, ok := f.Fields[key]
	return ok
}

// String returns a text field; numbers and booleans are taken as their text.
func (f *Frontmatter) String(key string) string {
	v, ok := f.Fields[key]
	if !ok || v == nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case int, int64, float64, bool:
		return fmt.Sprint(x)
	}
	f.warn(key, "want text, got %s", kind(v))
	return ""
}

// Hint returns a text field that YAML may have read as a flow list:
// `argument-hint: [message]` is Claude Code's own way to write a hint, and
// YAML makes it a one-item list. Such a list is given back as it was
// written ("[message]", "[a, b]").
func (f *Frontmatter) Hint(key string) string {
	v, ok := f.Fields[key]
	if !ok || v == nil {
		return ""
	}
	items, isList := v.([]any)
	if !isList {
		return f.String(key)
	}
	parts := make([]string, 0, len(items))
	for _, e := range items {
		switch x := e.(type) {
		case string, int, int64, float64, bool:
			parts = append(parts, strings.TrimSpace(fmt.Sprint(x)))
		default:
			f.warn(key, "want text, got a list holding %s", kind(e))
			return ""
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Bool returns a boolean field ("true"/"false" text is accepted too).
func (f *Frontmatter) Bool(key string) (value, set bool) {
	v, ok := f.Fields[key]
	if !ok || v == nil {
		return false, false
	}
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
	}
	f.warn(key, "want true or false, got %v", v)
	return false, false
}

// Int returns a whole-number field.
func (f *Frontmatter) Int(key string) int {
	v, ok := f.Fields[key]
	if !ok || v == nil {
		return 0
	}
	if n, ok := v.(int); ok && n >= 0 {
		return n
	}
	f.warn(key, "want a whole number, got %v", v)
	return 0
}

// List returns a list field written either as a YAML list or as one
// string separated by commas or spaces outside parentheses ("Read, Grep,
// Bash(git status:*)"), as Claude Code accepts both.
func (f *Frontmatter) List(key string) []string {
	v, ok := f.Fields[key]
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case string:
		return splitList(x)
	case []any:
		var out []string
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				f.warn(key, "entry %d: want text, got %s", i+1, kind(e))
				continue
			}
			out = append(out, splitList(s)...)
		}
		return out
	}
	f.warn(key, "want a list or a comma-separated text, got %s", kind(v))
	return nil
}

// OneOf returns a text field that must be one of allowed ("" when absent
// or invalid).
func (f *Frontmatter) OneOf(key string, allowed ...string) string {
	s := f.String(key)
	if s == "" {
		return ""
	}
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a
		}
	}
	f.warn(key, "%q is not one of %s", s, strings.Join(allowed, ", "))
	return ""
}

func splitList(s string) []string {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		s = t[1 : len(t)-1]
	}
	return permission.SplitToolList(s)
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "text"
	case bool:
		return "a boolean"
	case int, int64, float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
