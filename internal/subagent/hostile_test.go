package subagent

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/projectfile/projectfiletest"
	"github.com/tandem-agent/tandem/internal/skills"
)

// TestHostileAgentFiles: a project agent file linking to a secret outside
// the repository, a FIFO, an oversized file and one holding only `---`
// each become a warning; none blocks, panics or reaches an agent.
func TestHostileAgentFiles(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "home", ".ssh", "id_rsa")
	agents := filepath.Join(base, "repo", ".claude", "agents")
	for p, c := range map[string]string{
		secret:                           "---\nname: key\ndescription: SECRETKEY\n---\nSECRETKEY",
		filepath.Join(agents, "dash.md"): "---",
		filepath.Join(agents, "good.md"): "---\nname: good\ndescription: fine\n---\nGood.",
	} {
		projectfiletest.WriteFile(t, p, []byte(c))
	}
	hostile := projectfiletest.Cases(t, secret, []byte("---\nname: big\ndescription: big\n---\n"+strings.Repeat("x", 300<<10)))
	for f, kind := range map[string]string{"key.md": projectfiletest.Outside, "fifo.md": projectfiletest.NamedPipe, "big.md": projectfiletest.TooLarge} {
		hostile[kind](filepath.Join(agents, f))
	}
	var c *Catalog
	projectfiletest.Within(t, "loading agents", 15*time.Second, func() {
		c = Load(nil, skills.Place{Dir: agents, Scope: skills.ScopeProject, Root: filepath.Join(base, "repo")}, skills.Place{})
	})
	for _, d := range c.Defs {
		if strings.Contains(d.Description+d.Prompt, "SECRETKEY") {
			t.Errorf("agent %s carries the secret", d.Name)
		}
	}
	if c.Get("good") == nil {
		t.Error("the good agent was not loaded beside the bad ones")
	}
	for file, msg := range map[string]string{"key.md": "outside the repository", "fifo.md": "named pipe", "big.md": "larger than", "dash.md": "never closed"} {
		found := false
		for _, w := range c.Warnings {
			found = found || (w.File == filepath.Join(agents, file) && strings.Contains(w.Msg, msg))
		}
		if !found {
			t.Errorf("no warning %q for %s in %v", msg, file, c.Warnings)
		}
	}
}

// FuzzAgentFile: the agent file parser never panics and gives the same
// result for the same bytes; a parsed agent has a name and a description.
// CI runs a few thousand inputs (scripts/test).
func FuzzAgentFile(f *testing.F) {
	for _, s := range []string{"", "---", "---\n---\n", "---\nname: r\ndescription: Reads.\ntools: Read, Grep\nmodel: haiku\npermissionMode: plan\nmaxTurns: 5\nskills: [style]\neffort: low\n---\nYou read.\n",
		"---\nname: l\ndescription: Lists.\ntools:\n  - Glob\n  - Bash(ls:*)\ndisallowedTools: Write\n---\nYou list.\n",
		"---\nname: [unclosed\n---\n", "---\nname: b\ndescription: B\npermissionMode: sideways\nmaxTurns: many\n---\nP\n", "---\nname: a b\ndescription: x\n---\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d1, w1, e1 := parseFile("a.md", skills.ScopeProject, []byte(text))
		d2, w2, e2 := parseFile("a.md", skills.ScopeProject, []byte(text))
		if !reflect.DeepEqual(d1, d2) || !reflect.DeepEqual(w1, w2) || (e1 == nil) != (e2 == nil) {
			t.Fatalf("parseFile(%q) differs between two calls", text)
		}
		if e1 == nil && (d1.Name == "" || d1.Description == "") {
			t.Fatalf("parseFile(%q) = %+v: no name or description", text, d1)
		}
	})
}
