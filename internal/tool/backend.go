package tool

import (
	"context"
	"os"
	"os/exec"
	"syscall"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/regular"
)

// Confiner puts a command a tool is about to start inside the session's
// OS sandbox (internal/sandbox.Sandbox): Confine rewrites cmd, unstarted,
// to run through the sandbox's launcher, or fails, and then the command
// must not run. DenialEvents says what the sandbox refused a finished
// command, inferred from its output (sandbox_denial events).
type Confiner interface {
	Confine(cmd *exec.Cmd) error
	DenialEvents(output, cwd string) []event.Event
}

// Starter is a Confiner that also starts a command itself, through the
// session's sandbox process (internal/sandbox.Sandbox.StartConfined): no
// start of tandem per command, so a command costs about what it costs
// unconfined. cmd is read, not started (its streams must be files or
// nil); the command runs in a process group of its own whose id is pid,
// and dies with the session. wait returns its status.
type Starter interface {
	StartConfined(cmd *exec.Cmd) (pid int, wait func() (syscall.WaitStatus, error), err error)
}

// Files is where the file tools (Read, Write, Edit, MultiEdit) read and
// write a file's content. The local disk is the default; an editor over
// ACP offers its own, so the tools see its unsaved buffers and edits land
// in the editor. Paths are absolute and resolved. The tools still check
// the file on disk (kind, size, links) and the permission engine has
// judged the call before either method runs.
type Files interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte) error
}

// LocalFiles reads and writes the local disk.
type LocalFiles struct{}

// ReadFile reads a regular file (never blocking on a FIFO or device).
func (LocalFiles) ReadFile(_ context.Context, path string) ([]byte, error) {
	return regular.ReadFile(path)
}

// WriteFile writes in place, so an existing file keeps its mode, owner and
// hard links; a new file gets 0644.
func (LocalFiles) WriteFile(_ context.Context, path string, data []byte) error {
	return os.WriteFile(path, data, 0o644)
}

// Terminal runs Bash's foreground commands in a terminal of the program
// driving tandem (an editor's, over ACP terminal/*), so the user watches
// them there. nil: tandem runs them as its own child processes. The shell
// validator and permission engine have judged the command first.
type Terminal interface {
	// Run runs the command to its end. When ctx ends first (an interrupt,
	// the timeout) it kills the command and returns what it printed.
	Run(ctx context.Context, c TerminalCommand) (TerminalResult, error)
}

// TerminalCommand is one command for a Terminal: Shell -c Script in Dir.
type TerminalCommand struct {
	ToolUseID string
	Shell     string
	Script    string
	Dir       string
	// Env are KEY=VALUE changes to the terminal's own environment ("KEY="
	// blanks a variable the command must not see).
	Env []string
}

// TerminalResult is what a command printed (stdout and stderr as the
// terminal interleaved them) and how it ended.
type TerminalResult struct {
	Output    string
	Truncated bool // the terminal kept only the end of the output
	// ExitCode is the command's exit status, 128+n after signal n.
	ExitCode int
}

// FileSystem returns the session's Files: Env.Files, or the local disk.
func (e *Env) FileSystem() Files {
	if e != nil && e.Files != nil {
		return e.Files
	}
	return LocalFiles{}
}
