package checkpoint

import (
	"context"
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// UseTools is how the tracker finds, by name, what a tool declares of
// itself (the files its calls write, whether it runs commands): the
// session's tools, and the Claude Code CLI's own under the claude-code
// runtime. BeforeTool and AfterTool (the claude-code runtime's calls,
// which tandem has no tool object for) read it; it is set once, before
// the first turn.
func (t *Tracker) UseTools(l tool.Lookup) {
	t.mu.Lock()
	t.tools = l
	t.mu.Unlock()
}

// written are the paths a call of x declares it writes.
func written(x tool.Tool, input json.RawMessage) []string {
	if x == nil {
		return nil
	}
	acc, ok := tool.AccessorOf(x)
	if !ok {
		return nil
	}
	accesses, err := acc.FileAccess(input)
	if err != nil {
		return nil // the tool refuses an input it cannot read
	}
	var out []string
	for _, a := range accesses {
		if a.Write && a.Path != "" {
			out = append(out, a.Path)
		}
	}
	return out
}

// lookup is the tool named name, nil when the tracker does not know it.
func (t *Tracker) lookup(name string) tool.Tool {
	t.mu.Lock()
	l := t.tools
	t.mu.Unlock()
	x, _ := l.Find(name)
	return x
}

// BeforeTool is called before a tool call runs (after it was allowed).
func (t *Tracker) BeforeTool(ctx context.Context, name string, input json.RawMessage) {
	t.before(ctx, t.lookup(name), input)
}

// AfterTool is called when a tool call has finished and worked (the
// claude-code runtime's PostToolUse). A call allowed by BeforeTool that
// never gets here was refused or failed after tandem allowed it: End
// lists its files only if they changed.
func (t *Tracker) AfterTool(ctx context.Context, name string, input json.RawMessage) {
	t.after(ctx, t.lookup(name), input, true)
}

// before records what call of x (nil: a tool the tracker does not know)
// is about to change: the files it declares it writes, else everything
// when it runs commands.
func (t *Tracker) before(ctx context.Context, x tool.Tool, input json.RawMessage) {
	if paths := written(x, input); len(paths) > 0 {
		for _, p := range paths {
			t.BeforeFile(ctx, p)
		}
		return
	}
	if tool.RunsCommands(x) {
		t.BeforeScan(ctx)
	}
}

// after ends a call; ok is its outcome (it worked). The files it declared
// join the checkpoint only if it worked or changed them anyway.
func (t *Tracker) after(ctx context.Context, x tool.Tool, input json.RawMessage, ok bool) {
	if paths := written(x, input); len(paths) > 0 {
		for _, p := range paths {
			t.AfterFile(ctx, p, ok)
		}
		return
	}
	if tool.RunsCommands(x) {
		t.AfterScan(ctx)
	}
}

// WrapTools returns ts with the calls that change files recorded by t:
// the tools that declare file access (tool.FileAccessor) and are not
// read-only, and the ones that run commands (tool.RunsCommands). Tools
// that change nothing are returned as they are.
func WrapTools(t *Tracker, ts []tool.Tool) []tool.Tool {
	out := make([]tool.Tool, len(ts))
	for i, x := range ts {
		_, files := tool.AccessorOf(x)
		ro, _ := x.(tool.ReadOnly)
		if (files && (ro == nil || !ro.ReadOnly())) || tool.RunsCommands(x) {
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
	w.tr.before(rec, w.Tool, call.Input)
	res, err := w.Tool.Execute(ctx, call)
	w.tr.after(rec, w.Tool, call.Input, err == nil && !res.IsError)
	return res, err
}

// Unwrap is the wrapped tool, whose declarations (tool.AccessorOf) hold.
func (w trackedTool) Unwrap() tool.Tool { return w.Tool }

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
