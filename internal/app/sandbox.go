package app

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/permission/shell"
	"github.com/tandem-agent/tandem/internal/sandbox"
)

// sandboxConfig merges the config files' "sandbox" sections and lays the
// --sandbox / --no-sandbox flag ("on", "off", "": none) over them. What a
// project file may not set is said on warn.
func (a *App) sandboxConfig(cfg *config.Config, flag string) (sandbox.Config, error) {
	var layers []sandbox.Layer
	for _, l := range cfg.Layers {
		layers = append(layers, sandbox.Layer{File: l.File, Scope: l.Scope, Raw: l.Sandbox})
	}
	sc, notes, err := sandbox.ParseLayers(layers)
	if err != nil {
		return sc, err
	}
	for _, n := range notes {
		fmt.Fprintln(a.opts.Stderr, "tandem:", n)
	}
	switch flag {
	case "":
	case sandbox.ModeOn, sandbox.ModeOff:
		sc.Mode = flag
	default:
		return sc, fmt.Errorf("sandbox %q: want on or off", flag)
	}
	return sc, nil
}

// sandboxSecrets are the paths no sandboxed command may read: the
// credential paths the permission engine knows (one list:
// shell.SensitiveHomePaths), tandem's own secret files, its session
// database and the user's config file (it may hold API keys).
func (a *App) sandboxSecrets() []string {
	out := shell.SensitiveHomePaths(a.home())
	out = append(out, a.Paths.SecretFiles()...)
	db := a.Paths.DBFile()
	return append(out, db, db+"-wal", db+"-shm", a.Paths.UserFile())
}

// SandboxFor builds the sandbox for commands run in roots (the workspace
// first) under sc, with a private temporary folder that cleanup removes.
// An error means the sandbox is on but cannot be built here: the caller
// must not run commands unconfined.
// noNamespaces forces the fallback (`tandem sandbox run --no-namespaces`).
func (a *App) SandboxFor(sc sandbox.Config, roots []string, proxySocket string, noNamespaces bool) (*sandbox.Sandbox, func(), error) {
	tmp, err := os.MkdirTemp("", "tandem-sandbox-")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: make its temporary folder: %w", err)
	}
	cleanup := func() { os.RemoveAll(tmp) }
	p, err := sandbox.Build(sandbox.Input{Config: sc, Roots: roots, Home: a.home(), Secrets: a.sandboxSecrets(),
		TempDir: tmp, ProxySocket: proxySocket, Getenv: a.opts.Getenv})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	p.NoNamespaces = noNamespaces
	sb, err := sandbox.New(p, a.opts.SandboxExe)
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("the sandbox is on (config or --sandbox) but cannot run here: %w", err)
	}
	return sb, cleanup, nil
}

// confine is the session's sandbox as the function the process starters
// take (MCP stdio servers, hooks, the claude CLI); nil when it is off.
func (eq *Equipment) confine() func(*exec.Cmd) error {
	if eq.sandbox == nil {
		return nil
	}
	return eq.sandbox.Confine
}

// errSandboxClaudeCode refuses what the sandbox does not cover yet rather
// than run it outside while the config says on.
var errSandboxClaudeCode = errors.New("the sandbox does not cover the claude CLI yet (the claude-code runtime): run with --no-sandbox, or use the native runtime (--runtime native)")
