package skills

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/testfiles"
)

// write creates files under root from a name -> content map.
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	testfiles.Tree(t, root, files)
}

// The frontmatter shapes found in the public anthropics/skills repository
// (plain, double-quoted and `|-` block descriptions, license, none) and in
// Claude Code's documentation (every field tandem reads), as our own
// fixtures.
var shapes = map[string]string{
	"plain/SKILL.md":     "---\nname: plain\ndescription: Creating algorithmic art using p5.js. Use this when users request art.\nlicense: Complete terms in LICENSE.txt\n---\n\n# Plain\n\nBody of plain.\n",
	"quoted/SKILL.md":    "---\nname: quoted\ndescription: \"Use this skill whenever the user wants to do anything with .docx files: create, read, edit.\"\nlicense: Proprietary. LICENSE.txt has complete terms\n---\nQuoted body.\n",
	"block/SKILL.md":     "---\nname: block\ndescription: |-\n  Reference for the API.\n  TRIGGER when the prompt names it.\n  SKIP otherwise.\nlicense: Complete terms in LICENSE.txt\n---\nBlock body.\n",
	"nolicense/SKILL.md": "---\nname: nolicense\ndescription: Create new skills, modify and improve existing skills.\n---\nNo license body.\n",
	"spec/SKILL.md":      "---\nname: spec\ndescription: Spec fields.\nlicense: MIT\ncompatibility: Requires git\nmetadata:\n  author: someone\n  version: \"1.0\"\nallowed-tools: Read Bash(git status:*)\n---\nSpec body.\n",
	"full/SKILL.md": `---
name: full
description: Every Claude Code field.
when_to_use: When the user says full.
allowed-tools:
  - Read
  - Bash(git log:*)
disallowed-tools: Write, Edit
argument-hint: "[file] [mode]"
arguments: [file, mode]
model: haiku
effort: high
context: fork
agent: Explore
disable-model-invocation: false
user-invocable: true
paths: ["src/**"]
hooks: {}
shell: bash
version: 2
---
Review $file in $mode mode. All: $ARGUMENTS. First: $1.
`,
	"useronly/SKILL.md":   "---\nname: useronly\ndescription: Only for the user.\ndisable-model-invocation: true\n---\nUser only.\n",
	"modelonly/SKILL.md":  "---\nname: modelonly\ndescription: Only for the model.\nuser-invocable: false\n---\nModel only.\n",
	"nofront/SKILL.md":    "# No frontmatter\n\nThe first paragraph is the description.\n",
	"badfield/SKILL.md":   "---\nname: badfield\ndescription: [not, text]\ncontext: sideways\neffort: 7\nallowed-tools: Bash(unclosed\nuser-invocable: perhaps\n---\nStill loads.\n",
	"badyaml/SKILL.md":    "---\nname: badyaml\ndescription: \"unterminated\n---\nBody.\n",
	"unclosed/SKILL.md":   "---\nname: unclosed\ndescription: never closed\n",
	"Wrong Name/SKILL.md": "---\nname: Has Spaces\ndescription: bad name\n---\nBody.\n",
}

func TestParseEveryShape(t *testing.T) {
	root := t.TempDir()
	write(t, root, shapes)
	cat := Load(Places{Skills: []Place{{Dir: root, Scope: ScopeProject}}})
	got := map[string]*Skill{}
	for _, s := range cat.Skills {
		got[s.Name] = s
	}
	want := map[string]string{
		"plain":     "Creating algorithmic art using p5.js. Use this when users request art.",
		"quoted":    "Use this skill whenever the user wants to do anything with .docx files: create, read, edit.",
		"block":     "Reference for the API.\nTRIGGER when the prompt names it.\nSKIP otherwise.",
		"nolicense": "Create new skills, modify and improve existing skills.",
		"spec":      "Spec fields.",
		"nofront":   "No frontmatter",
	}
	for name, desc := range want {
		s := got[name]
		if s == nil {
			t.Errorf("skill %q not loaded", name)
			continue
		}
		if s.Description != desc {
			t.Errorf("%s: description %q, want %q", name, s.Description, desc)
		}
	}
	if s := got["spec"]; s == nil || strings.Join(s.AllowedTools, "|") != "Read|Bash(git status:*)" {
		t.Errorf("spec allowed-tools = %v", s)
	}
	f := got["full"]
	if f == nil {
		t.Fatal("full not loaded")
	}
	if f.WhenToUse != "When the user says full." || strings.Join(f.AllowedTools, "|") != "Read|Bash(git log:*)" ||
		strings.Join(f.DisallowedTools, "|") != "Write|Edit" || f.ArgumentHint != "[file] [mode]" ||
		strings.Join(f.Arguments, "|") != "file|mode" || f.Model != "haiku" || f.Effort != "high" ||
		f.Context != ContextFork || f.Agent != "Explore" || f.DisableModelInvocation || !f.UserInvocable {
		t.Errorf("full parsed as %+v", f)
	}
	if p := f.Prompt(`a.go "fast mode"`); !strings.Contains(p, "Review a.go in fast mode mode. All: a.go \"fast mode\". First: a.go.") || !strings.Contains(p, "Base directory for this skill: "+f.Dir) {
		t.Errorf("full prompt = %q", p)
	}
	if got["useronly"].ModelVisible() || got["modelonly"].UserInvocable {
		t.Error("disable-model-invocation / user-invocable not honoured")
	}
	bad := got["badfield"]
	if bad == nil || bad.Context != ContextInline || bad.Effort != "" || bad.UserInvocable != true {
		t.Errorf("badfield = %+v (bad fields should fall back to defaults)", bad)
	}
	if got["has spaces"] != nil || got["wrong name"] == nil {
		t.Errorf("a bad name should fall back to the folder name; got %v", keys(got))
	}
	for _, w := range []struct{ file, field string }{
		{"badfield", "description"}, {"badfield", "context"}, {"badfield", "effort"}, {"badfield", "allowed-tools"},
		{"badfield", "user-invocable"}, {"badyaml", ""}, {"unclosed", ""}, {"Wrong Name", "name"},
	} {
		if !hasWarning(cat.Warnings, w.file, w.field) {
			t.Errorf("no warning for %s field %q; warnings: %v", w.file, w.field, cat.Warnings)
		}
	}
	if got["badyaml"] != nil || got["unclosed"] != nil {
		t.Error("files whose frontmatter cannot be read must be skipped")
	}
}

func hasWarning(ws []Warning, dir, field string) bool {
	for _, w := range ws {
		if filepath.Base(filepath.Dir(w.File)) == dir && w.Field == field {
			return true
		}
	}
	return false
}

func keys(m map[string]*Skill) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestProjectWinsOverUser(t *testing.T) {
	proj, user := t.TempDir(), t.TempDir()
	write(t, proj, map[string]string{".claude/skills/dup/SKILL.md": "---\nname: dup\ndescription: project one\n---\nP\n"})
	write(t, user, map[string]string{".claude/skills/dup/SKILL.md": "---\nname: dup\ndescription: user one\n---\nU\n",
		".agents/skills/other/SKILL.md": "---\nname: other\ndescription: from agents\n---\nO\n"})
	cat := Load(DefaultPlaces(proj, user, ""))
	if s := cat.Skill("dup"); s == nil || s.Description != "project one" || s.Scope != ScopeProject {
		t.Fatalf("dup = %+v, want the project one", s)
	}
	if cat.Skill("other") == nil {
		t.Error(".agents/skills not searched")
	}
	if len(cat.Notices) != 1 || !strings.Contains(cat.Notices[0], "using the project one") {
		t.Errorf("notices = %v", cat.Notices)
	}
}

func TestCommands(t *testing.T) {
	proj := t.TempDir()
	write(t, proj, map[string]string{
		".claude/commands/fix-issue.md":       "---\ndescription: Fix an issue\nargument-hint: [number] [priority]\nallowed-tools: Bash(gh issue view:*)\nmodel: haiku\n---\nFix issue #$1 with priority $2. Everything: $ARGUMENTS\n",
		".claude/commands/frontend/review.md": "Review the frontend.\n",
		".claude/commands/compact.md":         "Not the real compact.\n",
		".claude/skills/deploy/SKILL.md":      "---\nname: deploy\ndescription: Deploy\n---\nDeploy to $ARGUMENTS now.\n",
		".claude/commands/deploy.md":          "Shadowed by the skill.\n",
	})
	cat := Load(DefaultPlaces(proj, "", ""))
	cmd, text, ok := cat.Expand("/fix-issue 123 high")
	if !ok || text != "Fix issue #123 with priority high. Everything: 123 high" {
		t.Fatalf("expand = %v %q", ok, text)
	}
	if cmd.Description != "Fix an issue" || cmd.ArgumentHint != "[number] [priority]" || cmd.Model != "haiku" || cmd.AllowedTools[0] != "Bash(gh issue view:*)" {
		t.Errorf("command = %+v", cmd)
	}
	if _, text, ok := cat.Expand("/frontend:review please"); !ok || text != "Review the frontend.\n\nARGUMENTS: please" {
		t.Errorf("namespaced command = %v %q", ok, text)
	}
	if _, _, ok := cat.Expand("/compact"); ok {
		t.Error("a file must not replace the built-in /compact")
	}
	if !hasWarning(cat.Warnings, "commands", "") {
		t.Errorf("no warning for commands/compact.md: %v", cat.Warnings)
	}
	if cmd, text, ok := cat.Expand("/deploy prod"); !ok || cmd.Kind != "skill" || !strings.HasSuffix(text, "Deploy to prod now.") {
		t.Errorf("skill command = %v %q", ok, text)
	}
	for _, p := range []string{"hello", "/etc/hosts is a file", "/unknown x", ""} {
		if _, _, ok := cat.Expand(p); ok {
			t.Errorf("%q expanded", p)
		}
	}
}

func TestListingBudget(t *testing.T) {
	var entries []Entry
	for i := 0; i < 50; i++ {
		entries = append(entries, Entry{Name: "skill-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Text: strings.Repeat("word ", 100)})
	}
	full := Listing(entries[:2], 0)
	if strings.Count(full, "\n") != 1 || !strings.Contains(full, "- skill-aa: word word") {
		t.Errorf("small listing = %q", full)
	}
	for _, budget := range []int{12000, 3000, 600} {
		l := Listing(entries, budget)
		if len(l) > budget {
			t.Errorf("budget %d: listing has %d chars", budget, len(l))
		}
		if !strings.Contains(l, "skill-aa") {
			t.Errorf("budget %d: first entry lost", budget)
		}
	}
	if l := Listing(entries, 600); !strings.Contains(l, "more (not listed") {
		t.Errorf("tight listing does not say what was left out: %q", l)
	}
}

func TestSubstitute(t *testing.T) {
	cases := []struct{ body, args, want string }{
		{"a $ARGUMENTS b", "x y", "a x y b"},
		{"$1-$2-$3", "x 'y z'", "x-y z-"},
		{"$ARGUMENTS[1]", "x y", "y"},
		{"costs $5", "", "costs "},
		{"no args here", "", "no args here"},
		{"price in $", "", "price in $"},
	}
	for _, c := range cases {
		if got := Substitute(c.body, c.args, nil); got != c.want {
			t.Errorf("Substitute(%q, %q) = %q, want %q", c.body, c.args, got, c.want)
		}
	}
}

func TestExpandBuiltinInit(t *testing.T) {
	text, ok := ExpandBuiltin("/init  the test layout ")
	if !ok || !strings.HasPrefix(text, "Write an AGENTS.md") || !strings.HasSuffix(text, "\n\nPay particular attention to: the test layout") {
		t.Fatalf("%v %q", ok, text)
	}
	if text, ok := ExpandBuiltin("/init"); !ok || strings.Contains(text, "Pay particular") {
		t.Errorf("bare /init: %v %q", ok, text)
	}
	for _, p := range []string{"/initialize", "/compact", "init the repo", "/cost"} {
		if _, ok := ExpandBuiltin(p); ok {
			t.Errorf("%q expanded", p)
		}
	}
}

// TestArgumentHintInBrackets: Claude Code's examples write the hint in
// brackets, which YAML reads as a list; the hint is still shown as
// written, with no warning.
func TestArgumentHintInBrackets(t *testing.T) {
	for src, want := range map[string]string{
		"---\nargument-hint: [message]\n---\nx":       "[message]",
		"---\nargument-hint: [a, b]\n---\nx":          "[a, b]",
		"---\nargument-hint: [pr] [priority]\n---\nx": "[pr] [priority]",
		"---\nargument-hint: \"<file>\"\n---\nx":      "<file>",
	} {
		c, warns, err := parseCommand("c.md", "c", ScopeProject, []byte(src))
		if err != nil || c.ArgumentHint != want || len(warns) != 0 {
			t.Errorf("%q: command hint = %q, warnings %v, err %v; want %q", src, c.ArgumentHint, warns, err, want)
		}
		s, warns, err := parseSkill("d", "d/SKILL.md", ScopeProject, []byte(strings.Replace(src, "---\n", "---\ndescription: d\n", 1)))
		if err != nil || s.ArgumentHint != want || len(warns) != 0 {
			t.Errorf("%q: skill hint = %q, warnings %v, err %v; want %q", src, s.ArgumentHint, warns, err, want)
		}
	}
	if c, warns, _ := parseCommand("c.md", "c", ScopeProject, []byte("---\nargument-hint: [{a: 1}]\n---\nx")); c.ArgumentHint != "" || len(warns) != 1 {
		t.Errorf("a list of mappings: hint %q, warnings %v", c.ArgumentHint, warns)
	}
}
