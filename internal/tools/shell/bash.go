// Package shell provides the Bash tool and its background-job companions
// BashOutput and KillShell, with Claude Code's names and input schemas.
package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/tool"
)

const (
	bashName       = "Bash"
	defaultTimeout = 120000 * time.Millisecond
	maxTimeout     = 600000 * time.Millisecond
)

//go:embed bash.md
var bashDescription string

var bashSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The command to execute"},
    "timeout": {"type": "number", "description": "Optional timeout in milliseconds (max 600000)"},
    "description": {"type": "string", "description": "Clear, concise description of what this command does in 5-10 words, in active voice. Examples:\nInput: ls\nOutput: List files in current directory\n\nInput: git status\nOutput: Show working tree status\n\nInput: npm install\nOutput: Install package dependencies"},
    "run_in_background": {"type": "boolean", "description": "Set to true to run this command in the background. Use BashOutput to read the output later."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)

// sandboxedSchema is bashSchema with dangerouslyDisableSandbox, offered
// only when the session's commands run in the OS sandbox.
var sandboxedSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The command to execute"},
    "timeout": {"type": "number", "description": "Optional timeout in milliseconds (max 600000)"},
    "description": {"type": "string", "description": "Clear, concise description of what this command does in 5-10 words, in active voice. Examples:\nInput: ls\nOutput: List files in current directory\n\nInput: git status\nOutput: Show working tree status\n\nInput: npm install\nOutput: Install package dependencies"},
    "run_in_background": {"type": "boolean", "description": "Set to true to run this command in the background. Use BashOutput to read the output later."},
    "dangerouslyDisableSandbox": {"type": "boolean", "description": "Commands run in a sandbox (writes only in the workspace, no secret files, network only to allowed hosts). Set this to true to run the command outside it; the user is asked first. Only when the sandbox refused something the task needs."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)

// cwdTrap reports the shell's final folder on fd 3 however the script ends
// (including `exit N`), without touching stdout, and keeps the exit code.
const cwdTrap = "trap '__tandem_ec=$?; pwd -P >&3 2>/dev/null; exit $__tandem_ec' EXIT\n"

// Bash runs shell commands.
type Bash struct {
	schema json.RawMessage
	// launch finds the shell and builds the command environment once: both
	// depend only on the process's own environment, which does not change.
	launch func() launcher
}

// Options configures the Bash tool.
type Options struct {
	// Secrets are the variables commands never inherit and whose values are
	// blanked in their output (zero: the well-known provider keys).
	Secrets secrets.Policy
	// Redact, when set, is Secrets' redactor already built (it reads the
	// credential files), shared with the other tools' output.
	Redact *secrets.Redactor
	// Sandboxed: commands run in the OS sandbox (tool.Env.Sandbox), and
	// the schema offers dangerouslyDisableSandbox.
	Sandboxed bool
}

// NewBash returns the Bash tool with the default secret policy.
func NewBash() *Bash { return NewBashWith(Options{}) }

// NewBashWith returns the Bash tool configured by opts.
func NewBashWith(opts Options) *Bash {
	schema := bashSchema
	if opts.Sandboxed {
		schema = sandboxedSchema
	}
	return &Bash{schema: schema, launch: sync.OnceValue(func() launcher { return newLauncher(opts.Secrets, opts.Redact) })}
}

func (b *Bash) launcher() launcher {
	if b.launch == nil {
		return newLauncher(secrets.Policy{}, nil)
	}
	return b.launch()
}

func (*Bash) Name() string              { return bashName }
func (*Bash) Description() string       { return bashDescription }
func (b *Bash) Schema() json.RawMessage { return b.schema }

type bashInput struct {
	Command         string   `json:"command"`
	Timeout         *float64 `json:"timeout"`
	Description     string   `json:"description"`
	RunInBackground bool     `json:"run_in_background"`
	// DisableSandbox runs the command outside the session's sandbox; the
	// permission engine asked the user before the call got here.
	DisableSandbox bool `json:"dangerouslyDisableSandbox"`
}

// Execute runs one command to completion, or starts it in the background.
func (b *Bash) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil {
		return tool.Result{}, fmt.Errorf("bash: call has no session environment")
	}
	var in bashInput
	if err := tool.DecodeInput(bashName, call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString(bashName, "command", in.Command); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	timeout, note, err := resolveTimeout(in.Timeout)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	dir := CurrentDir(call.Env)
	l := b.launcher()
	if !in.DisableSandbox {
		l.sandbox = call.Env.Sandbox
	}
	if in.RunInBackground {
		return startBackground(call.Env, call.ID, l, in.Command, in.Description, dir)
	}
	// A client's terminal is outside tandem's reach: with the sandbox on,
	// commands run here, confined, instead.
	if call.Env.Terminal != nil && l.sandbox == nil {
		return runInTerminal(ctx, call, l, in, dir, timeout, note), nil
	}
	return reportDenials(call, l, dir, runForeground(ctx, call, l, in, dir, timeout, note)), nil
}

// reportDenials emits a sandbox_denial event for each refusal the
// sandbox infers from a command's output, and tells the model what would
// permit it (the result is stored with the note).
func reportDenials(call tool.Call, l launcher, dir string, res tool.Result) tool.Result {
	if l.sandbox == nil {
		return res
	}
	for _, ev := range l.sandbox.DenialEvents(res.Content, dir) {
		ev.ToolUseID, ev.ToolName = call.ID, bashName
		call.Env.Emit(ev)
		res.Content += "\n[sandbox] " + ev.Message
	}
	return res
}

// resolveTimeout applies the default and the ceiling; the note tells the
// model when its value was clamped.
func resolveTimeout(ms *float64) (time.Duration, string, error) {
	if ms == nil || *ms == 0 {
		return defaultTimeout, "", nil
	}
	v := *ms
	if v < 0 || math.IsNaN(v) {
		return 0, "", fmt.Errorf("invalid input for Bash: timeout must be a positive number of milliseconds (at most %d), got %v", maxTimeout.Milliseconds(), v)
	}
	if v > float64(maxTimeout.Milliseconds()) {
		return maxTimeout, fmt.Sprintf("Note: timeout %v ms exceeds the maximum; %d ms was used.", v, maxTimeout.Milliseconds()), nil
	}
	return time.Duration(v * float64(time.Millisecond)), "", nil
}

type runOutcome struct {
	timedOut, interrupted bool
	code                  int
	newDir                string
}

func runForeground(ctx context.Context, call tool.Call, l launcher, in bashInput, dir string, timeout time.Duration, note string) tool.Result {
	env := call.Env
	// The trap reports the final folder on a pipe (fd 3) rather than a
	// temporary file: a pipe costs one system call and leaves nothing behind.
	cwdR, cwdW, err := os.Pipe()
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("Bash could not create a pipe: %v", err))
	}
	defer cwdR.Close()

	coll := newCollector(env.DataDir, env.SessionID, "bash", maxInline)
	st := newStreamer(env.Emit, call.ID, bashName)
	// Secret values are blanked before the output reaches the model, the
	// event stream or the spill file.
	stdout := l.redact.NewWriter(io.MultiWriter(coll, st.writer("stdout")))
	stderr := l.redact.NewWriter(io.MultiWriter(coll, st.writer("stderr")))
	l.env = hardenGit(l.env, in.Command, dir)
	p, err := start(startSpec{
		launcher: l, script: cwdTrap + in.Command, dir: dir,
		stdout: stdout, stderr: stderr,
		extra: []*os.File{cwdW}, procs: sessionProcsOf(env),
	})
	cwdW.Close() // the shell has its own copy now
	if err != nil {
		st.close()
		return tool.ErrorResult(fmt.Sprintf("Bash could not run the command in %s: %v", dir, err))
	}
	out := wait(ctx, p, timeout)
	out.newDir = reportedDir(cwdR)
	p.drain(drainWait)
	secrets.Flush(stdout)
	secrets.Flush(stderr)
	st.close()
	if out.timedOut {
		env.Emit(event.Event{Type: event.ToolTimeout, ToolUseID: call.ID, ToolName: bashName,
			TimeoutMS: timeout.Milliseconds()})
	}
	text, truncated, spill := coll.finish()
	return buildResult(env, in, out, text, truncated, spill, timeout, note)
}

// wait blocks until the shell exits, the timeout fires or ctx ends; the
// last two kill the whole process group.
func wait(ctx context.Context, p *process, timeout time.Duration) runOutcome {
	var out runOutcome
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		out.timedOut = true
		p.kill(killGrace)
	case <-ctx.Done():
		out.interrupted = true
		p.kill(killGrace)
	}
	<-p.exited
	out.code = p.exitCode()
	return out
}

func buildResult(env *tool.Env, in bashInput, out runOutcome, text string, truncated bool, spill string, timeout time.Duration, note string) tool.Result {
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}
	switch {
	case out.timedOut:
		notes = append(notes, fmt.Sprintf("Command timed out after %s and was stopped (it and every process it started were killed).", timeout))
	case out.interrupted:
		notes = append(notes, "Command was interrupted by the user; it and every process it started were killed.")
	case out.code != 0:
		notes = append(notes, fmt.Sprintf("Exit code %d", out.code))
	}
	if !out.timedOut && !out.interrupted {
		if n := updateCwd(env, out.newDir); n != "" {
			notes = append(notes, n)
		}
	}
	content := strings.TrimRight(text, "\n")
	if content == "" && len(notes) == 0 {
		content = "(no output)"
	}
	if len(notes) > 0 {
		if content != "" {
			content += "\n\n"
		}
		content += strings.Join(notes, "\n")
	}
	meta := map[string]any{"exit_code": out.code, "cwd": CurrentDir(env)}
	if truncated {
		meta["truncated"] = true
		if spill != "" {
			meta["spill_path"] = spill
		}
	}
	if out.interrupted {
		meta["interrupted"] = true
	}
	if in.Description != "" {
		meta["description"] = in.Description
	}
	return tool.Result{Content: content, IsError: out.code != 0 || out.timedOut || out.interrupted,
		Meta: meta, Timeout: out.timedOut}
}
