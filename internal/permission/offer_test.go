package permission

import "testing"

// Explore mode offers what it can run: read-only tools, Bash (read-only
// commands), and the tools judged harmless; never the edit tools or an MCP
// tool that is not read-only. Every other mode offers everything.
func TestModeOffers(t *testing.T) {
	for _, c := range []struct {
		tool     string
		readOnly bool
		explore  bool
	}{
		{"Read", true, true}, {"Grep", true, true}, {"Bash", false, true}, {"WebFetch", false, true},
		{"TodoWrite", false, true}, {"Agent", false, true}, {"Skill", false, true},
		{"Edit", false, false}, {"Write", false, false}, {"MultiEdit", false, false}, {"NotebookEdit", false, false},
		{"mcp__gh__create_issue", false, false}, {"mcp__gh__list_issues", true, true},
	} {
		if got := Offers(Explore, c.tool, c.readOnly); got != c.explore {
			t.Errorf("explore offers %s: %t, want %t", c.tool, got, c.explore)
		}
		for _, m := range []Mode{Normal, AcceptEdits, Trust, DontAsk, AskEdits} {
			if !Offers(m, c.tool, c.readOnly) {
				t.Errorf("%s does not offer %s", m, c.tool)
			}
		}
	}
}

func TestCanAsk(t *testing.T) {
	if NewEngine(EngineOptions{FileTools: builtinFiles, WorkDir: t.TempDir()}).CanAsk() {
		t.Error("an engine without an asker says it can ask")
	}
	e := NewEngine(EngineOptions{FileTools: builtinFiles, WorkDir: t.TempDir(), Asker: AskerFunc(nil)})
	if !e.CanAsk() || !e.Narrowed(Explore).(narrowed).CanAsk() {
		t.Error("an engine with an asker says it cannot ask")
	}
}
