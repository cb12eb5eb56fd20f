package skills

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzFrontmatter feeds skill and command files (the shapes of the tests,
// and the hostile ones: "---" alone, unclosed blocks, CRLF, a BOM, loose
// YAML) to the frontmatter splitter and to the skill and command parsers
// built on it. Properties: nothing panics; the same bytes give the same
// result every time; a file that does not start with a `---` line is all
// body; a parsed skill always has a name and a context.
//
// CI runs a few thousand inputs (scripts/test).
func FuzzFrontmatter(f *testing.F) {
	for _, s := range shapes {
		f.Add(s)
	}
	for _, s := range []string{"", "---", "---\n", "---\n---", "---\n---\n", "\xef\xbb\xbf---\r\nname: x\r\n---\r\nbody",
		"---\nname: [a\n---\n", "---\nargument-hint: [a] [b]\n---\n$1 $ARGUMENTS", "---\nallowed-tools: 1\n---\n",
		"---\n- a\n- b\n---\n", "---\nname: x\n", "no frontmatter\n---\n", "---\nkey: value\n---"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		data := []byte(text)
		fm1, body1, err1 := SplitFrontmatter("f.md", data)
		fm2, body2, err2 := SplitFrontmatter("f.md", data)
		if !reflect.DeepEqual(fm1, fm2) || body1 != body2 || (err1 == nil) != (err2 == nil) {
			t.Fatalf("SplitFrontmatter(%q) differs between two calls", text)
		}
		norm := strings.ReplaceAll(strings.TrimPrefix(text, "\xef\xbb\xbf"), "\r\n", "\n")
		if !strings.HasPrefix(norm, "---\n") && norm != "---" && (err1 != nil || body1 != norm || len(fm1.Fields) != 0) {
			t.Fatalf("SplitFrontmatter(%q) = %v, %q, %v; want all body", text, fm1, body1, err1)
		}
		if err1 == nil && fm1.Fields == nil {
			t.Fatalf("SplitFrontmatter(%q): nil fields", text)
		}

		s1, w1, e1 := parseSkill("dir/k", "dir/k/SKILL.md", ScopeProject, data)
		s2, w2, e2 := parseSkill("dir/k", "dir/k/SKILL.md", ScopeProject, data)
		if !reflect.DeepEqual(s1, s2) || !reflect.DeepEqual(w1, w2) || (e1 == nil) != (e2 == nil) {
			t.Fatalf("parseSkill(%q) differs between two calls", text)
		}
		if e1 == nil && (s1.Name == "" || s1.Context == "") {
			t.Fatalf("parseSkill(%q) = %+v: no name or context", text, s1)
		}
		c1, cw1, ce1 := parseCommand("c.md", "c", ScopeProject, data)
		c2, cw2, ce2 := parseCommand("c.md", "c", ScopeProject, data)
		if !reflect.DeepEqual(c1, c2) || !reflect.DeepEqual(cw1, cw2) || (ce1 == nil) != (ce2 == nil) {
			t.Fatalf("parseCommand(%q) differs between two calls", text)
		}
	})
}
