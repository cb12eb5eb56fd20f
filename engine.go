package tandem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider"
)

// Options configure an Engine. The zero value is the tandem a user runs:
// their config files, their data folder, API keys from the environment.
type Options struct {
	// Home is a tandem home folder: config.json, the session database and
	// tandem's other data live in it. "" means what the CLI uses
	// (TANDEM_HOME, else ~/.config/tandem and ~/.local/share/tandem).
	Home string
	// ConfigFile is the user config file (tandem's config.json format,
	// `tandem config schema`) in place of Home's config.json: a program
	// can bring its own settings (providers, permissions, MCP servers,
	// hooks) and still keep its sessions in Home. Project files still
	// apply over it.
	ConfigFile string
	// Getenv reads the environment (API keys, base URLs, TANDEM_*); nil
	// means os.Getenv. A program that wants to keep the process
	// environment out passes its own.
	Getenv func(string) string
	// Providers are model providers given in code, by name: a session
	// whose model is "NAME/model-id" calls Providers[NAME]. They win over
	// the built-in providers and config entries of the same name.
	Providers map[string]Provider
	// Model is the model for sessions that name none ("provider/model",
	// e.g. anthropic/claude-sonnet-5-5). "": the config's, else one
	// chosen from the API keys in the environment.
	Model string
	// PermissionMode is the mode for sessions that name none ("": the
	// config's, else ModeNormal).
	PermissionMode PermissionMode
	// Permission answers the questions of every session that has no
	// SessionOptions.Permission. nil: a call that needs approval is
	// denied, with a message telling the model why.
	Permission PermissionFunc
	// AllowedTools and DisallowedTools are permission rules in Claude
	// Code's syntax ("Bash(git log:*)", "Edit", "mcp__github"), as
	// `tandem run --allowedTools` takes them: allowed calls run without
	// asking, disallowed ones are refused and not offered.
	AllowedTools, DisallowedTools []string
	// Tools are custom tools offered in every session, beside the
	// built-in ones.
	Tools []Tool
	// MCPServers are MCP servers every session starts.
	MCPServers []MCPServer
	// MCPWait is how long opening a session waits for its MCP servers to
	// connect, so their tools are offered from the first turn (0: 30 s, as
	// the CLI; the wait ends once every server connected or failed;
	// negative: do not wait).
	MCPWait time.Duration
	// TrustProjects treats every folder as trusted (`tandem trust`): its
	// project files may set what could send keys elsewhere or run
	// commands (provider URLs, hooks, allow rules). Without it a session
	// in such a folder opens without those settings, and its first event
	// is a status event whose meta "notice" is "untrusted", listing what
	// was left out (docs/permissions.md).
	TrustProjects bool
	// RequireTrust refuses, instead, a session in an untrusted folder
	// whose project files set anything that needs trust, with an error
	// naming the file, the key and `tandem trust DIR`.
	RequireTrust bool
	// Stderr receives warnings (an MCP server that failed to start, a
	// skipped project setting). nil: discarded.
	Stderr io.Writer
}

// Engine is an open tandem: its store, configuration and providers. It is
// safe for concurrent use; each session runs one turn at a time.
type Engine struct {
	app  *app.App
	opts Options

	mu       sync.Mutex
	sessions map[string]*Session // open sessions, for permission questions
	closed   bool
	// flagRules are Options.AllowedTools and DisallowedTools, given to
	// every session the engine opens.
	flagRules []permission.Rule
}

// Open opens an engine: it reads the user's configuration and opens the
// session store (creating Home's files on first use).
func Open(ctx context.Context, opts Options) (*Engine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, t := range opts.Tools {
		if err := t.check(); err != nil {
			return nil, err
		}
	}
	if err := checkToolNames(opts.Tools, nil); err != nil {
		return nil, err
	}
	if opts.PermissionMode != "" {
		if _, err := permission.ParseMode(string(opts.PermissionMode)); err != nil {
			return nil, fmt.Errorf("Options.PermissionMode: %w", err)
		}
	}
	if _, err := mcpJSON(opts.MCPServers); err != nil {
		return nil, err
	}
	provs := map[string]provider.Provider{}
	for name, p := range opts.Providers {
		if name == "" || p == nil {
			return nil, errors.New("Options.Providers: every provider needs a name and a non-nil value")
		}
		provs[name] = customProvider{name: name, p: p}
	}
	e := &Engine{opts: opts, sessions: map[string]*Session{}}
	a, err := app.Open(app.Options{Home: opts.Home, ConfigFile: opts.ConfigFile, Getenv: opts.Getenv,
		Stderr: opts.Stderr, TrustProject: opts.TrustProjects, RequireTrust: opts.RequireTrust, Providers: provs, Version: moduleVersion()})
	if err != nil {
		return nil, fmt.Errorf("open tandem: %w", err)
	}
	allow, err := permission.ParseToolFlags(opts.AllowedTools, permission.ActionAllow)
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("Options.AllowedTools: %w", err)
	}
	deny, err := permission.ParseToolFlags(opts.DisallowedTools, permission.ActionDeny)
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("Options.DisallowedTools: %w", err)
	}
	e.flagRules = append(allow, deny...)
	e.app = a
	return e, nil
}

// moduleVersion is the version of this module the program was built
// with, as MCP servers are told.
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Path == modulePath && info.Main.Version != "" && info.Main.Version != "(devel)" {
			return "tandem " + info.Main.Version
		}
		for _, d := range info.Deps {
			if d.Path == modulePath {
				return "tandem " + d.Version
			}
		}
	}
	return "tandem dev"
}

const modulePath = "github.com/tandem-agent/tandem"

// Close closes the sessions still open and the store.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	open := make([]*Session, 0, len(e.sessions))
	for _, s := range e.sessions {
		open = append(open, s)
	}
	e.mu.Unlock()
	for _, s := range open {
		s.Close()
	}
	return e.app.Close()
}

// ask routes a permission question to its session's callback, else the
// engine's. A sub-agent asks under its own (child) session id: the
// question belongs to the open session it descends from.
func (e *Engine) ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	f := e.opts.Permission
	if s := e.owner(ctx, q.SessionID); s != nil && s.permission != nil {
		f = s.permission
	}
	if f == nil {
		return permission.Answer{Decision: permission.DenyCall, By: "api",
			Message: q.Summary + " needs approval, and the program running tandem answers no permission questions: " +
				"it can allow the call with a rule (AllowedTools), a permission mode, or a Permission callback"}, nil
	}
	return asker(f).Ask(ctx, q)
}

// owner is the open session id is, or descends from (nil: none).
func (e *Engine) owner(ctx context.Context, id string) *Session {
	for depth := 0; id != "" && depth < 16; depth++ {
		e.mu.Lock()
		s := e.sessions[id]
		e.mu.Unlock()
		if s != nil {
			return s
		}
		rec, err := e.app.Manager.Find(context.WithoutCancel(ctx), id)
		if err != nil {
			return nil
		}
		id = rec.ParentID
	}
	return nil
}

func (e *Engine) register(s *Session) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errors.New("the engine is closed")
	}
	e.sessions[s.id] = s
	return nil
}

func (e *Engine) unregister(s *Session) {
	e.mu.Lock()
	if e.sessions[s.id] == s {
		delete(e.sessions, s.id)
	}
	e.mu.Unlock()
}

// checkToolNames refuses two custom tools of one name, and a custom tool
// named like one the session already has (has may be nil).
func checkToolNames(ts []Tool, has func(string) bool) error {
	seen := map[string]bool{}
	for _, t := range ts {
		if seen[t.Name] {
			return fmt.Errorf("two custom tools are named %s: give each its own name", t.Name)
		}
		seen[t.Name] = true
		if has != nil && has(t.Name) {
			return fmt.Errorf("custom tool %s: a built-in tool has that name; choose another", t.Name)
		}
	}
	return nil
}
