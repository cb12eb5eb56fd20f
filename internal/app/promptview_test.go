package app

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/prompt"
)

var update = flag.Bool("update", false, "rewrite testdata/prompt/*.golden from the rendered requests")

// familyModels is one catalog model per prompt family.
var familyModels = map[prompt.Family]string{
	prompt.Claude: "anthropic/claude-sonnet-4-5",
	prompt.GPT:    "openai/gpt-5",
	prompt.Gemini: "google/gemini-2.5-pro",
	prompt.Open:   "ollama/qwen3-coder:30b",
}

// promptCase is one rendered first request.
type promptCase struct {
	family   prompt.Family
	mode     permission.Mode
	headless bool
}

func (c promptCase) name() string {
	n := string(c.family) + "-" + string(c.mode)
	if c.headless {
		n += "-headless"
	}
	return n
}

func promptCases() []promptCase {
	var out []promptCase
	for _, f := range prompt.Families() {
		for _, m := range permission.Modes() {
			out = append(out, promptCase{family: f, mode: m})
		}
		out = append(out, promptCase{family: f, mode: permission.Trust, headless: true})
	}
	return out
}

func viewFor(t *testing.T, a *App, work string, c promptCase) *PromptView {
	t.Helper()
	v, err := a.PromptView(context.Background(), PromptViewRequest{Cwd: work, Model: familyModels[c.family], Mode: string(c.mode), NoAsker: c.headless})
	if err != nil {
		t.Fatal(err)
	}
	if v.Family != c.family {
		t.Fatalf("%s: family %s", familyModels[c.family], v.Family)
	}
	return v
}

// promptApp has a search-less environment: a key for Anthropic only, so
// WebSearch works (the provider's own search) only for Claude.
func promptApp(t *testing.T) (*App, string) {
	return testApp(t, map[string]string{"ANTHROPIC_API_KEY": "test-key"})
}

// Every tool and every parameter a description or the system prompt
// names must exist in the same request: a model told about a tool it
// was not given calls it and fails (issue 35: "the Task tool", Grep's
// `include`).
func TestPromptNamesOnlyWhatTheRequestHas(t *testing.T) {
	a, work := promptApp(t)
	// Every name the model might take for a tool: tandem's own and the
	// Claude Code names it knows.
	known := map[string]bool{"Task": true, "NotebookEdit": true, "NotebookRead": true, "LS": true, "ExitPlanMode": true,
		"TodoRead": true, "KillBash": true, "LSP": true, "AskUserQuestion": true}
	full := viewFor(t, a, work, promptCase{family: prompt.Claude, mode: permission.Trust})
	for _, l := range full.Left {
		known[l.Name] = true
	}
	for _, s := range full.Request.Tools {
		known[s.Name] = true
	}
	word := regexp.MustCompile(`\b[A-Z][A-Za-z]+\b`)
	// A parameter is named `so` in descriptions, or "the so parameter"
	// (schemas sit in Go raw strings, which cannot hold backquotes).
	ticked := regexp.MustCompile("`([a-z][a-z_]*)`|\\bthe ([a-z][a-z_]*) parameter\\b")
	for _, c := range promptCases() {
		v := viewFor(t, a, work, c)
		offered := map[string]json.RawMessage{}
		for _, s := range v.Request.Tools {
			offered[s.Name] = s.InputSchema
		}
		check := func(where, text string) {
			// A sub-agent type's own tool list names what its definition
			// asks for; the child gets those that can work.
			text = regexp.MustCompile(`\(Tools: [^)]*\)`).ReplaceAllString(text, "")
			for _, w := range word.FindAllString(text, -1) {
				if known[w] && offered[w] == nil {
					t.Errorf("%s: %s names %s, which this request does not offer", c.name(), where, w)
				}
			}
		}
		for _, s := range v.Sections {
			check("system prompt section "+s.Name, s.Text)
		}
		for _, s := range v.Request.Tools {
			check(s.Name+"'s description", s.Description)
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
				t.Fatalf("%s schema: %v", s.Name, err)
			}
			check(s.Name+"'s schema", string(s.InputSchema))
			for _, m := range ticked.FindAllStringSubmatch(s.Description+string(s.InputSchema), -1) {
				if p := m[1] + m[2]; schema.Properties[p] == nil && !notParameters[p] {
					t.Errorf("%s: %s's description names parameter `%s`, which its schema does not have", c.name(), s.Name, p)
				}
			}
		}
	}
}

// notParameters are backquoted words in descriptions that are commands
// or values, not parameter names.
var notParameters = map[string]bool{"cd": true, "find": true, "ls": true, "grep": true, "rg": true, "cat": true, "head": true,
	"tail": true, "sed": true, "awk": true, "vim": true, "less": true, "general_purpose": true}

// The rendered first request per family and mode, reviewed when it
// changes: `go test ./internal/app -run TestPromptGolden -update`.
// Each golden holds the system prompt and the tools offered with their
// sizes; tools.golden holds the tool definitions themselves (the same for
// every family).
func TestPromptGolden(t *testing.T) {
	a, work := promptApp(t)
	norm := func(s string) string {
		s = strings.ReplaceAll(s, work, "/work")
		s = regexp.MustCompile(`(?m)^(Date|OS|Shell): .*$`).ReplaceAllString(s, "$1: …")
		return s
	}
	for _, c := range promptCases() {
		v := viewFor(t, a, work, c)
		var b strings.Builder
		var sys int64
		for _, s := range v.Request.System {
			// Counted as normalised: the temporary folder's name and the
			// date vary in length from run to run.
			sys += compact.Tokens(norm(s))
		}
		fmt.Fprintf(&b, "model %s, mode %s, no asker %t: system prompt %d tokens\n", v.Model, v.Mode, v.NoAsker, sys)
		for i, s := range v.Request.System {
			fmt.Fprintf(&b, "\n==== system block %d ====\n%s\n", i+1, norm(s))
		}
		b.WriteString("\n==== tools ====\n")
		for _, s := range v.Request.Tools {
			fmt.Fprintf(&b, "%s %d\n", s.Name, compact.ToolTokens(s.Name, s.Description, string(s.InputSchema)))
		}
		for _, l := range v.Left {
			fmt.Fprintf(&b, "not offered: %s: %s\n", l.Name, l.Reason)
		}
		golden(t, c.name()+".golden", b.String())
	}
	v := viewFor(t, a, work, promptCase{family: prompt.Claude, mode: permission.Normal})
	var b strings.Builder
	for _, s := range v.Request.Tools {
		fmt.Fprintf(&b, "==== %s ====\n%s\n\ninput schema: %s\n\n", s.Name, norm(s.Description), s.InputSchema)
	}
	golden(t, "tools.golden", b.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "prompt", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/app -run TestPromptGolden -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendered request; review the change and run with -update:\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first line that differs.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n want %q\n got  %q", i+1, wl, gl)
		}
	}
	return ""
}

// Budgets of issue 35: the system prompt at most 2.5k tokens, the whole
// first request at most 9k with the default tool set.
func TestPromptBudget(t *testing.T) {
	a, work := promptApp(t)
	for _, c := range promptCases() {
		v := viewFor(t, a, work, c)
		var sys, all int64
		for _, s := range v.Request.System {
			sys += compact.Tokens(s)
		}
		all = sys
		for _, s := range v.Request.Tools {
			all += compact.ToolTokens(s.Name, s.Description, string(s.InputSchema))
		}
		if sys > 2500 || all > 9000 {
			t.Errorf("%s: system prompt %d tokens (budget 2500), first request %d (budget 9000)", c.name(), sys, all)
		}
	}
}
