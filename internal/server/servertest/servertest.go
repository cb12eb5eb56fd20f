// Package servertest builds a complete server stack for tests and the
// benchmark: the real application (internal/app: its store, wiring,
// permission engine, hooks, skills, sub-agents and checkpoints) in a
// temporary folder, with a provider pointing at a scripted model server.
package servertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/session"
)

// Model is the model spec sessions use ("scripted/<id>").
const Model = "scripted/claude-sonnet-4-5"

// Config tunes the stack.
type Config struct {
	Script scripted.Script
	// AskTools are tools that always ask for permission (e.g. "Write"),
	// so tests see permission requests in normal mode.
	AskTools []string
	// NoPermissions runs sessions in trust mode, where every call inside
	// the workspace runs unasked.
	NoPermissions bool
	// Checkpoints records rewind checkpoints around turns and tools (off:
	// the user config's "checkpoints": {"disabled": true}).
	Checkpoints bool
	// UserConfig is laid over the stack's user config file (top-level keys
	// replace the stack's).
	UserConfig map[string]any
	// ModelURL points the sessions at a model server already running
	// (a benchmark runs it in another process, so its CPU and memory are
	// not counted as the server's); Script is then unused and Stack.Model
	// is nil.
	ModelURL string
	// Database is the store's URL (a benchmark's PostgreSQL); "": the
	// SQLite file in the stack's folder.
	Database string
}

// Stack is the assembled pieces.
type Stack struct {
	Dir     string // data folder
	App     *app.App
	Manager *session.Manager
	Model   *scripted.Server
	// Checkpoints serves the checkpoint endpoints (recording needs
	// Config.Checkpoints).
	Checkpoints *checkpoint.Service
	// FlagRules are Config.AskTools as rules, for server.Options.FlagRules.
	FlagRules []permission.Rule
}

// New builds a stack in dir. Close it when done.
func New(dir string, cfg Config) (*Stack, error) {
	var ms *scripted.Server
	url := cfg.ModelURL
	if url == "" {
		ms = scripted.New(cfg.Script, scripted.WithoutRecording())
		var err error
		if url, err = ms.Start(); err != nil {
			return nil, fmt.Errorf("start scripted model server: %w", err)
		}
	}
	rules, err := permission.ParseToolFlags(cfg.AskTools, permission.ActionAsk)
	if err != nil {
		return nil, err
	}
	a, err := open(dir, url, cfg)
	if err != nil {
		if ms != nil {
			ms.Close()
		}
		return nil, err
	}
	return &Stack{Dir: dir, App: a, Manager: a.Manager, Model: ms, Checkpoints: a.Checkpoints, FlagRules: rules}, nil
}

// open writes the user config and opens the application in dir, with a
// home folder of its own so nothing of the machine's user is read.
func open(dir, url string, cfg Config) (*app.App, error) {
	home := filepath.Join(dir, "home")
	tandemHome := filepath.Join(dir, "tandem")
	for _, d := range []string{home, tandemHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	user := map[string]any{
		"model":       Model,
		"providers":   map[string]any{"scripted": map[string]any{"kind": "anthropic", "base_url": url, "api_key": "x"}},
		"checkpoints": map[string]any{"disabled": !cfg.Checkpoints},
	}
	if cfg.NoPermissions {
		user["permission_mode"] = string(permission.Trust)
	}
	for k, v := range cfg.UserConfig {
		user[k] = v
	}
	data, err := json.Marshal(user)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tandemHome, "config.json"), data, 0o600); err != nil {
		return nil, err
	}
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	return app.Open(app.Options{Home: tandemHome, Getenv: func(k string) string { return env[k] }, TrustProject: true, Database: cfg.Database})
}

// Close stops the model server and closes the store.
func (s *Stack) Close() {
	if s.Model != nil {
		s.Model.Close()
	}
	s.App.Close()
}
