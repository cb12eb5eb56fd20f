package permission

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// remind is a tool of the session's own that only talks to the session;
// contained says whether it declares so.
type remind struct{ contained bool }

func (remind) Name() string            { return "Remind" }
func (remind) Description() string     { return "" }
func (remind) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (remind) Execute(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}
func (r remind) Contained() bool { return r.contained }

// A tool is allowed without asking, in every mode, because it declares
// itself contained (tool.Contained), not because its name is in a table:
// the same tool without the declaration is asked about, and denied in
// explore mode; a deny rule naming it still wins.
func TestContainedIsDeclaredByTheTool(t *testing.T) {
	for _, c := range []struct {
		contained bool
		mode      Mode
		want      Action
	}{
		{true, Normal, ActionAllow}, {true, Explore, ActionAllow}, {true, AskEdits, ActionAllow},
		{false, Normal, ActionAsk}, {false, Explore, ActionDeny},
	} {
		lookup := tool.Lookup(func(name string) (tool.Tool, bool) { return remind{c.contained}, name == "Remind" }).Then(builtinFiles)
		e := NewEngine(EngineOptions{Tools: lookup, Mode: c.mode, WorkDir: t.TempDir()})
		if got := e.Explain(Request{Tool: "Remind", Input: json.RawMessage(`{}`)}).Action; got != c.want {
			t.Errorf("contained=%t in %s: %s, want %s", c.contained, c.mode, got, c.want)
		}
	}
	lookup := tool.Lookup(func(name string) (tool.Tool, bool) { return remind{true}, name == "Remind" })
	e := NewEngine(EngineOptions{Tools: lookup, WorkDir: t.TempDir(), UserRules: []Rule{{Permission: "Remind", Action: ActionDeny}}})
	if got := e.Explain(Request{Tool: "Remind", Input: json.RawMessage(`{}`)}).Action; got != ActionDeny {
		t.Errorf("a deny rule on a contained tool: %s", got)
	}
}
