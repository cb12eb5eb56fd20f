package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/tool"
)

type fakeTool struct {
	name     string
	readOnly bool
}

func (f fakeTool) Name() string            { return f.name }
func (f fakeTool) Description() string     { return "" }
func (f fakeTool) Schema() json.RawMessage { return json.RawMessage(`{}`) }
func (f fakeTool) ReadOnly() bool          { return f.readOnly }
func (f fakeTool) Execute(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}

// The calls a stopped replica left without results are named, each marked
// by what its tool declares: a read repeats safely, a command may have
// run already; calls with results are not listed.
func TestUnfinishedCallsAreMarkedByWhatTheirToolsDeclare(t *testing.T) {
	reg := tool.NewRegistry(fakeTool{name: "Read", readOnly: true}, fakeTool{name: "Bash"})
	use := func(id, name string) message.Block {
		return message.Block{Type: message.ToolUse, ID: id, Name: name, Input: json.RawMessage(`{}`)}
	}
	msgs := []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("go")}},
		{Role: message.Assistant, Content: []message.Block{use("t1", "Read")}},
		{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: "t1"}}},
		{Role: message.Assistant, Content: []message.Block{use("t2", "Read"), use("t3", "Bash"), use("t4", "Gone")}},
		{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: "t2"}}},
	}
	calls := unfinishedCalls(msgs, reg.Lookup())
	if len(calls) != 2 || calls[0] != (unfinishedCall{ID: "t3", Name: "Bash"}) || calls[1] != (unfinishedCall{ID: "t4", Name: "Gone"}) {
		t.Fatalf("unfinished = %+v, want Bash and the unknown tool, neither repeatable", calls)
	}
	if note := unfinishedNote(calls); !strings.Contains(note, "may have taken effect") || !strings.Contains(note, "Bash, Gone") {
		t.Errorf("note = %q", note)
	}
	msgs[4].Content = nil
	calls = unfinishedCalls(msgs[:4], reg.Lookup())
	if len(calls) != 3 || !calls[0].Repeatable || calls[1].Repeatable {
		t.Errorf("unfinished = %+v: the read is repeatable, the command is not", calls)
	}
	if unfinishedCalls(msgs[:1], reg.Lookup()) != nil {
		t.Error("a conversation with no model step has no unfinished calls")
	}
}
