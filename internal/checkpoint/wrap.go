package checkpoint

import (
	"context"
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// pathInputs are the tools that change the file named in their input, and
// the input field naming it (tandem's tools and Claude Code's built-ins).
var pathInputs = map[string]string{
	"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path",
}

// scanTools run shell commands: anything in the workspace may change.
var scanTools = map[string]bool{"Bash": true}

// classify says how a tool call is tracked: the file it changes, or a
// workspace scan around it, or nothing.
func classify(name string, input json.RawMessage) (path string, scan bool) {
	if key, ok := pathInputs[name]; ok {
		var m map[string]any
		if json.Unmarshal(input, &m) == nil {
			if p, ok := m[key].(string); ok && p != "" {
				return p, false
			}
		}
		return "", false
	}
	return "", scanTools[name]
}

// BeforeTool is called before a tool call runs (after it was allowed).
func (t *Tracker) BeforeTool(ctx context.Context, name string, input json.RawMessage) {
	path, scan := classify(name, input)
	switch {
	case path != "":
		t.BeforeFile(ctx, path)
	case scan:
		t.BeforeScan(ctx)
	}
}

// AfterTool is called when a tool call has finished.
func (t *Tracker) AfterTool(ctx context.Context, name string, input json.RawMessage) {
	path, scan := classify(name, input)
	switch {
	case path != "":
		t.AfterFile(ctx, path)
	case scan:
		t.AfterScan(ctx)
	}
}

// WrapTools returns ts with the calls that change files recorded by t.
// Tools that change nothing are returned as they are.
func WrapTools(t *Tracker, ts []tool.Tool) []tool.Tool {
	out := make([]tool.Tool, len(ts))
	for i, x := range ts {
		_, isPath := pathInputs[x.Name()]
		if isPath || scanTools[x.Name()] {
			out[i] = trackedTool{Tool: x, tr: t}
		} else {
			out[i] = x
		}
	}
	return out
}

type trackedTool struct {
	tool.Tool
	tr *Tracker
}

func (w trackedTool) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	// Recording uses a context the turn's interrupt cannot cut short: a
	// change the tool made must be recorded even when the user stops it.
	rec := context.WithoutCancel(ctx)
	w.tr.BeforeTool(rec, call.Name, call.Input)
	defer w.tr.AfterTool(rec, call.Name, call.Input)
	return w.Tool.Execute(ctx, call)
}

// ReadOnly forwards the wrapped tool's answer.
func (w trackedTool) ReadOnly() bool {
	ro, ok := w.Tool.(tool.ReadOnly)
	return ok && ro.ReadOnly()
}

// WrapRuntime makes a checkpoint before each turn of rt and emits its
// rewind_point; a checkpoint that cannot be made is reported and the turn
// runs anyway.
func WrapRuntime(rt turn.Runtime, t *Tracker) turn.Runtime { return trackedRuntime{Runtime: rt, tr: t} }

type trackedRuntime struct {
	turn.Runtime
	tr *Tracker
}

func (r trackedRuntime) RunTurn(ctx context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	rec := context.WithoutCancel(ctx)
	cp, err := r.tr.Begin(rec, in.Prompt)
	if err != nil {
		r.tr.notice("checkpoint: " + err.Error())
		return r.Runtime.RunTurn(ctx, in, d)
	}
	defer r.tr.End(rec)
	if d.Events != nil {
		// Right after the turn's own status, which stays the turn's first
		// event; a turn that fails before its status has no rewind point.
		cancel := d.Events.EmitAfter(isTurnStatus, event.Event{Type: event.RewindPoint, Checkpoint: cp.Number, Position: cp.Position})
		defer cancel()
	}
	return r.Runtime.RunTurn(ctx, in, d)
}

// isTurnStatus matches the status event a runtime emits when a turn starts
// (it names the runtime; notices and MCP statuses do not).
func isTurnStatus(e event.Event) bool {
	return e.Type == event.Status && e.Subtype == "" && e.Runtime != ""
}

// Unavailable forwards the wrapped tool's tool.Availability.
func (w trackedTool) Unavailable(model string) string { return tool.UnavailableReason(w.Tool, model) }
