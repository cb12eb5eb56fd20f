// Package tui is tandem's interactive terminal UI: a chat with the agent
// in the current folder (`tandem` on a terminal). It drives a session
// through a Backend (cmd/tandem implements it over internal/session, the
// same path `tandem run` and the server take), so a conversation held
// here resumes anywhere else. Nothing in the core imports this package.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// SessionInfo is what the status line and titles show of the open session.
type SessionInfo struct {
	ID, Title, Cwd, Model, Mode, Runtime string
	Usage                                message.Usage
	CostUSD                              *float64 // nil: unknown
	// CanCompact: the runtime compacts the conversation on a "/compact"
	// turn.
	CanCompact bool
}

// Backend is the session the UI talks to. Events of the open session
// arrive through the Sink given to Run; the methods act on it.
type Backend interface {
	Info() SessionInfo
	// Run runs one turn; cancelling ctx interrupts it (the turn is stored).
	Run(ctx context.Context, prompt string) (event.Event, error)
	// Reply answers a permission_request event.
	Reply(requestID string, a permission.Answer) error
	SetMode(ctx context.Context, mode string) error
	SetModel(ctx context.Context, model string) error
	// Sessions lists sessions to resume, most recent first.
	Sessions(ctx context.Context) ([]session.Summary, error)
	// Open switches to the session with this id ("" starts a new one).
	Open(ctx context.Context, id string) error
	// History is the open session's stored conversation.
	History(ctx context.Context) ([]message.Message, error)
	// Features are what the open session can do beyond running turns,
	// as its equipment names them: the UI reads them here and never
	// guesses from the backend's type.
	Features() Features
}

// Features are the open session's capabilities beyond Backend's own
// methods; a nil field is one it lacks, and the UI says so where a
// command needs it.
type Features struct {
	Images      ImageRunner
	Shell       ShellRunner
	Memory      Memory
	StatusLine  StatusLiner
	MCP         MCPServers
	Permissions Permissions
	Rewind      Rewinder
	Sandbox     Sandboxed
	// Tasks lists and stops the session's background tasks (/tasks).
	Tasks BackgroundTasks
	// OutputStyles lists and chooses the folder's output style
	// (/output-style).
	OutputStyles OutputStyles
	// Subagents keeps the sub-agents' runs, so a resumed conversation
	// shows each sub-agent's calls nested in the card that started it.
	Subagents SubagentHistory
}

// SubagentHistory reads the sub-agents' runs a session kept, to show
// them nested in a resumed conversation as they were shown live.
type SubagentHistory interface {
	// SubagentHistory returns the stored sub-agents that tool calls in
	// msgs (the open session's History) started.
	SubagentHistory(ctx context.Context, msgs []message.Message) ([]session.SubagentRun, error)
}

// ModelOption is a model /model offers: its provider/model id, and its
// status when it is not active ("legacy", "deprecated, retires ...").
type ModelOption struct{ ID, Status string }

// Options configure one UI run.
type Options struct {
	Backend Backend
	Sink    *Sink
	// Prompt, when set, is sent as the first message.
	Prompt string
	// HistoryFile keeps the prompts typed, across runs ("" keeps none).
	HistoryFile string
	// Commands are extra slash commands (custom commands, skills); they
	// join the built-in list.
	Commands []Command
	// Files lists the paths offered for @ mentions; nil walks Backend's cwd.
	Files func() []string
	// Models lists the models /model completes.
	Models func() []ModelOption
	// Input and Output default to the terminal; tests and benchmarks pass
	// pipes.
	Input  io.Reader
	Output io.Writer
	// Env is the environment used to detect colours (NO_COLOR, TERM);
	// nil: the process's.
	Env []string
	// Width and Height fix the size when Output is not a terminal.
	Width, Height int
	// FPS caps redraws (default 120, Bubble Tea's most: a key shows within
	// one frame of 8 ms while an answer streams).
	FPS int
}

// Run opens the UI and blocks until the user quits. The terminal is
// restored on every path out, a panic included; a turn still running is
// interrupted and waited for, so it is stored before Run returns.
func Run(ctx context.Context, opts Options) (err error) {
	if opts.Backend == nil || opts.Sink == nil {
		return errors.New("tui: Backend and Sink are required")
	}
	m := newModel(ctx, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.Env != nil {
		popts = append(popts, tea.WithEnvironment(opts.Env))
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	fps := opts.FPS
	if fps <= 0 {
		fps = 120
	}
	popts = append(popts, tea.WithFPS(fps))
	p := tea.NewProgram(m, popts...)
	stopPump := opts.Sink.pump(p.Send)
	defer func() {
		stopPump()
		m.shutdown() // interrupt and wait for a running turn
		m.removeClipboardImages()
		if r := recover(); r != nil {
			_ = p.RestoreTerminal()
			err = fmt.Errorf("tui: internal error: %v (the session is kept; please report this)", r)
		}
	}()
	_, err = p.Run()
	if errors.Is(err, tea.ErrProgramPanic) {
		return fmt.Errorf("tui: internal error (the session is kept; please report this): %w", err)
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the caller's context ended (a signal): a normal way out
	}
	return err
}

// noColor reports whether NO_COLOR asks for no colours.
func noColor(env []string) bool {
	if env == nil {
		v, ok := os.LookupEnv("NO_COLOR")
		return ok && v != ""
	}
	for _, kv := range env {
		if len(kv) > 9 && kv[:9] == "NO_COLOR=" {
			return true
		}
	}
	return false
}
