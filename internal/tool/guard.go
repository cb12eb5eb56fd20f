package tool

import (
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/event"
)

// FileGuard is implemented by a session's Confiner that also judges the
// paths file tools touch (the OS sandbox: internal/sandbox.Sandbox), so
// that one policy decides for commands and file tools alike. FileDenial
// gets an absolute path; ok false refuses it, ev being the sandbox_denial
// event whose Message is the error the model reads.
type FileGuard interface {
	FileDenial(path string, write, folder bool) (ev event.Event, ok bool)
}

// GuardFiles judges the paths t's call declares (FileAccessor) by the
// session's sandbox, when it has one that judges files: refused is true
// with the error result when one path is refused, after emitting its
// sandbox_denial event. A tool that declares no paths is not judged here
// (the permission engine treats it as unknown).
func GuardFiles(t Tool, call Call) (res Result, refused bool) {
	if call.Env == nil || call.Env.Sandbox == nil {
		return Result{}, false
	}
	g, ok := call.Env.Sandbox.(FileGuard)
	if !ok {
		return Result{}, false
	}
	acc, ok := AccessorOf(t)
	if !ok {
		return Result{}, false
	}
	accesses, err := acc.FileAccess(call.Input)
	if err != nil {
		return Result{}, false // the tool itself reports the bad input
	}
	for _, a := range accesses {
		if a.Path == "" {
			continue
		}
		p := a.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(call.Env.WorkDir, p)
		}
		if ev, ok := g.FileDenial(p, a.Write, a.Folder); !ok {
			ev.ToolUseID = call.ID
			call.Env.Emit(ev)
			return ErrorResult(ev.Message), true
		}
	}
	return Result{}, false
}

// ReportDenials emits a sandbox_denial event for each refusal the
// session's sandbox infers from a confined process's output (a
// background job's, an MCP stdio server's result) and returns their
// messages, for the result the model reads. None without a sandbox.
func ReportDenials(env *Env, toolUseID, toolName, output, cwd string) []string {
	if env == nil || env.Sandbox == nil {
		return nil
	}
	var msgs []string
	for _, ev := range env.Sandbox.DenialEvents(output, cwd) {
		ev.ToolUseID, ev.ToolName = toolUseID, toolName
		env.Emit(ev)
		msgs = append(msgs, ev.Message)
	}
	return msgs
}
