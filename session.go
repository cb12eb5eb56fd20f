package tandem

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// SessionOptions configure a session as it is opened. Empty fields take
// the Engine's Options, then the configuration.
type SessionOptions struct {
	// Dir is a new session's working folder ("" : the current folder).
	// Its project files (.tandem/config.json, CLAUDE.md, .mcp.json, ...)
	// apply as they do for the CLI. Ignored when resuming.
	Dir string
	// AddDirs are more folders the agent may work in.
	AddDirs []string
	// Model overrides the engine's ("provider/model").
	Model string
	// PermissionMode overrides the engine's.
	PermissionMode PermissionMode
	// Runtime is the agent behind the session; "": the config's, else
	// RuntimeNative.
	Runtime Runtime
	// Title names a new session ("" : the first prompt's first line).
	Title string
	// OnEvent receives every event of the session, from opening on (MCP
	// servers connecting, then each turn's), in order. It runs on the
	// session's goroutines while they wait: keep it quick, and do not call
	// the session from it.
	OnEvent func(Event)
	// Permission answers this session's questions instead of the
	// engine's callback.
	Permission PermissionFunc
	// Tools are offered beside the engine's custom tools.
	Tools []Tool
	// MCPServers start beside the engine's (one of the same name replaces
	// the engine's).
	MCPServers []MCPServer
}

// Runtime names the agent behind a session's turns.
type Runtime string

const (
	// RuntimeNative is tandem's own loop, with its tools, custom tools and
	// any provider.
	RuntimeNative Runtime = "native"
	// RuntimeClaudeCode drives the Claude Code CLI as a subprocess behind
	// the same events, permissions and storage (custom tools and
	// providers are not offered to it).
	RuntimeClaudeCode Runtime = "claude-code"
	// RuntimeAuto uses the Claude Code CLI when it is installed and the
	// model's provider speaks Anthropic's protocol, else the native loop.
	RuntimeAuto Runtime = "auto"
)

// Session is a stored tandem session open in this program. Its turns run
// one at a time; across processes (the CLI, the server) the session's
// lease keeps it so.
type Session struct {
	engine     *Engine
	live       *session.Live
	id         string
	permission PermissionFunc
	sink       *eventSink
	closeOnce  sync.Once
	// runMu keeps a turn's OnEvent with its turn when Run is called
	// concurrently.
	runMu sync.Mutex
}

// NewSession starts a new session in opts.Dir. Nothing is stored when the
// folder's settings are bad (an untrusted project file, an unknown model).
func (e *Engine) NewSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	return e.open(ctx, session.OpenRequest{Cwd: opts.Dir}, opts)
}

// ResumeSession opens a stored session by id (or a unique prefix of one):
// its next turn continues the conversation. Sessions started by the CLI,
// the server or the terminal UI resume here, and the other way round.
func (e *Engine) ResumeSession(ctx context.Context, id string, opts SessionOptions) (*Session, error) {
	if id == "" {
		return nil, errors.New("ResumeSession: no session id")
	}
	return e.open(ctx, session.OpenRequest{ID: id}, opts)
}

// ContinueSession resumes the latest session in dir ("" : the current
// folder), as `tandem run --continue` does.
func (e *Engine) ContinueSession(ctx context.Context, dir string, opts SessionOptions) (*Session, error) {
	return e.open(ctx, session.OpenRequest{Continue: true, Cwd: dir}, opts)
}

func (e *Engine) open(ctx context.Context, req session.OpenRequest, opts SessionOptions) (*Session, error) {
	tools, err := e.prepare(&req, opts)
	if err != nil {
		return nil, err
	}
	sink := &eventSink{session: opts.OnEvent}
	req.Sinks = []event.Sink{sink}
	// Questions go to the session's PermissionFunc (Engine.ask finds it).
	req.Asker, req.FlagRules = permission.AskerFunc(e.ask), e.flagRules
	live, err := e.app.Manager.Open(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := addTools(live, tools); err != nil {
		live.Close()
		return nil, fmt.Errorf("session %s: %w", live.ID(), err)
	}
	s := &Session{engine: e, live: live, id: live.ID(), permission: opts.Permission, sink: sink}
	if err := e.register(s); err != nil {
		live.Close()
		return nil, err
	}
	if wait := cmp.Or(e.opts.MCPWait, app.DefaultMCPWait); wait > 0 { // config files may name servers too
		live.WaitMCP(ctx, wait)
	}
	return s, nil
}

// prepare checks the session options and lays them, over the engine's,
// into req; it returns the custom tools the session gets.
func (e *Engine) prepare(req *session.OpenRequest, opts SessionOptions) ([]Tool, error) {
	for _, t := range opts.Tools {
		if err := t.check(); err != nil {
			return nil, err
		}
	}
	tools := append(append([]Tool(nil), e.opts.Tools...), opts.Tools...)
	if err := checkToolNames(tools, nil); err != nil {
		return nil, err
	}
	if len(tools) > 0 && opts.Runtime == RuntimeClaudeCode {
		return nil, noCustomTools(tools)
	}
	mode := cmp.Or(opts.PermissionMode, e.opts.PermissionMode)
	if mode != "" {
		if _, err := permission.ParseMode(string(mode)); err != nil {
			return nil, fmt.Errorf("PermissionMode: %w", err)
		}
	}
	mcpRaw, err := mcpJSON(e.opts.MCPServers, opts.MCPServers)
	if err != nil {
		return nil, err
	}
	req.AddDirs, req.Title = opts.AddDirs, opts.Title
	req.Model = cmp.Or(opts.Model, e.opts.Model)
	req.Runtime = string(opts.Runtime)
	req.Mode, req.ModeFromRequest = string(mode), true
	req.MCPServers = mcpRaw
	return tools, nil
}

// addTools registers the custom tools in an opened session, refusing a
// runtime that cannot offer them (the config's or the stored choice) and
// names the session already has.
func addTools(live *session.Live, tools []Tool) error {
	if len(tools) == 0 {
		return nil
	}
	if live.Info().Runtime == string(RuntimeClaudeCode) {
		return noCustomTools(tools)
	}
	if err := checkToolNames(tools, func(name string) bool { _, ok := live.Tools().Get(name); return ok }); err != nil {
		return err
	}
	for _, t := range tools {
		live.Tools().Add(customTool{t: t})
	}
	return nil
}

func noCustomTools(tools []Tool) error {
	return fmt.Errorf("the claude-code runtime cannot offer custom tools (%s): open the session with Runtime: RuntimeNative, or without Tools", tools[0].Name)
}

// ID is the session's id (for ResumeSession, `tandem run --resume`).
func (s *Session) ID() string { return s.id }

// Dir is the session's working folder.
func (s *Session) Dir() string { return s.live.Info().Cwd }

// Close ends the session in this program: its background jobs and MCP
// servers stop. The stored session stays, to resume later.
func (s *Session) Close() {
	s.closeOnce.Do(func() {
		s.engine.unregister(s)
		s.live.Close()
	})
}

// SetModel switches the model ("provider/model") for the turns that
// follow; the session stores it.
func (s *Session) SetModel(ctx context.Context, model string) error {
	if model == "" {
		return errors.New("SetModel: no model")
	}
	return s.live.SetModel(ctx, model)
}

// SetPermissionMode switches the permission mode, from the next tool call
// on (a mode_changed event says so).
func (s *Session) SetPermissionMode(ctx context.Context, mode PermissionMode) error {
	if _, err := permission.ParseMode(string(mode)); err != nil {
		return fmt.Errorf("SetPermissionMode: %w", err)
	}
	return s.live.SetMode(ctx, string(mode))
}
