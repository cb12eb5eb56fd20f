package claudecode

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/tandem-agent/tandem/internal/permit"
	"github.com/tandem-agent/tandem/internal/tool"
)

// CLITool is what a Claude Code CLI tool that tandem has no tool of its
// own for declares of itself (the files a call touches, whether it changes
// anything, its kind): the one table of them. The CLI's Read, Write, Edit,
// MultiEdit, Glob, Grep, Bash, TodoWrite, WebFetch and WebSearch take the
// inputs tandem's tools of those names take, and are judged by those
// tools' declarations; these are the rest. tandem never runs them (the
// CLI does): Execute refuses.
func CLITool(name string) (tool.Tool, bool) {
	for _, t := range cliTools() {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// cliTools are the CLI's tools tandem has no tool of its own for.
func cliTools() []tool.Tool {
	return []tool.Tool{
		cliFileTool{cliTool{name: "NotebookEdit", kind: tool.KindEdit}, tool.PathField("notebook_path", true)},
		cliFileTool{cliTool{name: "NotebookRead", kind: tool.KindRead, readOnly: true}, tool.PathField("notebook_path", false)},
		cliFileTool{cliTool{name: "LS", kind: tool.KindSearch, readOnly: true}, tool.AccessFunc(lsAccess)},
		// StructuredOutput is how the CLI takes a --json-schema answer:
		// it only records the value.
		cliTool{name: "StructuredOutput", kind: tool.KindThink, readOnly: true},
		cliTool{name: "TodoRead", kind: tool.KindThink, readOnly: true},
		// KillBash is the CLI's older name of KillShell: it stops a job
		// the session started.
		cliTool{name: "KillBash", kind: tool.KindExecute, contained: true},
		cliTool{name: "ListMcpResourcesTool", kind: tool.KindRead, readOnly: true},
		cliTool{name: "ReadMcpResourceTool", kind: tool.KindRead, readOnly: true},
		// The CLI's plan hand-over and questions are put to the user as
		// tandem's own are (tool.Interactive).
		cliTool{name: "ExitPlanMode", kind: tool.KindThink, interaction: permit.PlanApproval},
		cliTool{name: "AskUserQuestion", kind: tool.KindThink, interaction: permit.UserQuestion},
	}
}

func lsAccess(input json.RawMessage) ([]tool.Access, error) {
	p, err := tool.StringField(input, "path")
	if p == "" {
		p = "."
	}
	return []tool.Access{{Path: p, Folder: true}}, err
}

// cliTool is a declaration of one of the CLI's tools.
type cliTool struct {
	name                string
	kind                tool.Kind
	readOnly, contained bool
	interaction         permit.Interaction
}

// cliFileTool is one whose calls touch the files its input names.
type cliFileTool struct {
	cliTool
	files tool.FileAccessor
}

var errCLIRuns = errors.New("this tool is the Claude Code CLI's own: the CLI runs it, tandem only judges its calls")

func (t cliTool) Name() string            { return t.name }
func (t cliTool) Description() string     { return "" }
func (t cliTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (t cliTool) Execute(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{}, errCLIRuns
}
func (t cliTool) Kind() tool.Kind { return t.kind }
func (t cliTool) ReadOnly() bool  { return t.readOnly }
func (t cliTool) Contained() bool { return t.contained }
func (t cliTool) Interaction() permit.Interaction {
	return t.interaction
}

func (t cliFileTool) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return t.files.FileAccess(input)
}
