package permission_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
	"github.com/tandem-agent/tandem/internal/tools/agenttools"
)

// mcpLike is a tool that declares only whether it is read-only, as an MCP
// server's tools do.
type mcpLike struct {
	name string
	ro   bool
}

func (m mcpLike) Name() string            { return m.name }
func (m mcpLike) Description() string     { return "" }
func (m mcpLike) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (m mcpLike) ReadOnly() bool          { return m.ro }
func (m mcpLike) Execute(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}

// Explore mode offers what it can run, as each tool declares it:
// read-only tools, the ones that run commands (read-only commands run),
// and contained ones; never the edit tools or an MCP tool that is not
// read-only. Every other mode offers everything. No tool is known by its
// name: a renamed contained tool is offered the same.
func TestModeOffers(t *testing.T) {
	builtin := tools.Lookup()
	find := func(name string) tool.Tool {
		for _, l := range []tool.Lookup{builtin, claudecode.CLITool} {
			if x, ok := l.Find(name); ok {
				return x
			}
		}
		t.Fatalf("no tool %s", name)
		return nil
	}
	for _, c := range []struct {
		tool    tool.Tool
		explore bool
	}{
		{find("Read"), true}, {find("Grep"), true}, {find("Bash"), true}, {find("WebFetch"), true},
		{find("TodoWrite"), true}, {find("KillShell"), true}, {find("BashOutput"), true},
		{find("AskUserQuestion"), true}, {find("LS"), true},
		{&agenttools.Agent{}, true}, {&agenttools.Skill{}, true},
		{find("Edit"), false}, {find("Write"), false}, {find("MultiEdit"), false}, {find("NotebookEdit"), false},
		{mcpLike{"mcp__gh__create_issue", false}, false}, {mcpLike{"mcp__gh__list_issues", true}, true},
	} {
		if got := permission.Offers(permission.Explore, c.tool); got != c.explore {
			t.Errorf("explore offers %s: %t, want %t", c.tool.Name(), got, c.explore)
		}
		for _, m := range []permission.Mode{permission.Normal, permission.AcceptEdits, permission.Trust, permission.DontAsk, permission.AskEdits} {
			if !permission.Offers(m, c.tool) {
				t.Errorf("%s does not offer %s", m, c.tool.Name())
			}
		}
	}
	// A plan to approve exists only in explore mode: ExitPlanMode is
	// offered there and nowhere else.
	plan := find("ExitPlanMode")
	for _, m := range []permission.Mode{permission.Explore, permission.Normal, permission.AcceptEdits, permission.Trust, permission.DontAsk, permission.AskEdits} {
		if got := permission.Offers(m, plan); got != (m == permission.Explore) {
			t.Errorf("%s offers ExitPlanMode: %t", m, got)
		}
	}
}
