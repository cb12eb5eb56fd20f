package lsp

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

// WrapTools returns ts with the calls that change files followed by the
// new errors of the files they changed: tools that declare writes
// (tool.FileAccessor, not read-only) and tools that run commands
// (tool.KindExecute), whose changes the checkpoint tracker, wrapped
// inside, reports through tool.ReportChanged. Others are returned as
// they are.
func WrapTools(m *Manager, ts []tool.Tool) []tool.Tool {
	out := make([]tool.Tool, len(ts))
	for i, t := range ts {
		_, files := tool.AccessorOf(t)
		if (files && !tool.IsReadOnly(t)) || tool.KindOf(t) == tool.KindExecute {
			out[i] = diagnosed{Tool: t, m: m}
		} else {
			out[i] = t
		}
	}
	return out
}

type diagnosed struct {
	tool.Tool
	m *Manager
}

func (d diagnosed) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	dir := ""
	if call.Env != nil {
		dir = call.Env.WorkDir
	}
	declared := declaredWrites(d.Tool, call.Input, dir)
	if len(declared) > 0 {
		d.m.Before(ctx, declared)
	}
	inner, changes := tool.WithChanges(ctx)
	res, err := d.Tool.Execute(inner, call)
	if err != nil || ctx.Err() != nil {
		return res, err
	}
	paths := changes.Paths()
	if !res.IsError {
		paths = append(declared, paths...)
	}
	if len(paths) == 0 {
		return res, nil
	}
	rep := d.m.After(ctx, unique(paths))
	if rep.Count() == 0 {
		return res, nil
	}
	res.Content += rep.Text(dir, d.m.opts.Settings.MaxDiagnostics)
	if call.Env != nil && call.Env.Emit != nil {
		call.Env.Emit(Event(rep, call.ID, call.Name, dir))
	}
	return res, nil
}

// Unwrap is the wrapped tool, whose declarations hold.
func (d diagnosed) Unwrap() tool.Tool { return d.Tool }

// ReadOnly forwards the wrapped tool's answer.
func (d diagnosed) ReadOnly() bool { return tool.IsReadOnly(d.Tool) }

// Unavailable forwards the wrapped tool's tool.Availability.
func (d diagnosed) Unavailable(model string) string { return tool.UnavailableReason(d.Tool, model) }

// declaredWrites are the absolute paths a call declares it writes.
func declaredWrites(t tool.Tool, input []byte, dir string) []string {
	acc, ok := tool.AccessorOf(t)
	if !ok {
		return nil
	}
	accesses, err := acc.FileAccess(input)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range accesses {
		if !a.Write || a.Path == "" {
			continue
		}
		p := a.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

func unique(ps []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Event is the diagnostics event of a report, for the call that caused
// it (docs/events.md).
func Event(r Report, callID, toolName, dir string) event.Event {
	items := []map[string]any{}
	for _, f := range r.Files {
		for _, d := range f.New {
			items = append(items, map[string]any{
				"path": f.Path, "line": d.Range.Start.Line + 1, "column": d.Range.Start.Character + 1,
				"severity": "error", "message": d.Message, "source": d.Source, "server": f.Server,
			})
		}
	}
	return event.Event{Type: event.Diagnostics, ToolUseID: callID, ToolName: toolName,
		Message: strings.Join(r.Lines(dir, len(items)), "\n"), Meta: map[string]any{"diagnostics": items}}
}
