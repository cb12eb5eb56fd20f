package app

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/sandbox/netproxy"
	"github.com/tandem-agent/tandem/internal/secretpaths"
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
// secretpaths.HomePaths), tandem's own secret files, its session
// database and the user's config file (it may hold API keys).
func (a *App) sandboxSecrets() []string {
	out := secretpaths.HomePaths(a.home())
	out = append(out, a.Paths.SecretFiles()...)
	db := a.Paths.DBFile()
	return append(out, db, db+"-wal", db+"-shm", a.Paths.UserFile())
}

// SandboxFor builds the sandbox for commands run in roots (the workspace
// first) under sc: a private temporary folder, and tandem's egress proxy on
// a unix socket (the only way out of the sandbox's network; its refusals
// go to onDenial, nil: dropped). cleanup stops the proxy and removes both
// folders. An error means the sandbox is on but cannot be built here: the
// caller must not run commands unconfined. noNamespaces forces the
// fallback (`tandem sandbox run --no-namespaces`). egress is the proxy,
// whose allow-list a session widens for itself (Equipment.SandboxAllow).
func (a *App) SandboxFor(sc sandbox.Config, roots []string, onDenial func(event.Event), noNamespaces bool) (sb *sandbox.Sandbox, egress *netproxy.Proxy, cleanup func(), err error) {
	var undo []func()
	cleanup = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	tmp, err := os.MkdirTemp("", "tandem-sandbox-")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sandbox: make its temporary folder: %w", err)
	}
	undo = append(undo, func() { os.RemoveAll(tmp) })
	// The proxy's socket lives in a folder of its own, outside every
	// writable root, so no command can replace it.
	sockDir, err := os.MkdirTemp("", "tandem-proxy-")
	if err != nil {
		cleanup()
		return nil, nil, nil, fmt.Errorf("sandbox: make the proxy's folder: %w", err)
	}
	undo = append(undo, func() { os.RemoveAll(sockDir) })
	allow, err := netproxy.ParseAllow(sandbox.AllowedHosts(sc))
	if err != nil {
		cleanup()
		return nil, nil, nil, fmt.Errorf("sandbox.network.allow: %w", err)
	}
	userFile := a.Paths.UserFile()
	proxy := netproxy.New(allow, netproxy.Options{ConfigFile: userFile, OnDenial: func(d netproxy.Denial) {
		if onDenial != nil {
			onDenial(sandbox.NetworkDenial(d.Host, d.Port, d.Method, d.Rule, d.Message(userFile)))
		}
	}})
	sock := filepath.Join(sockDir, "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		cleanup()
		return nil, nil, nil, fmt.Errorf("sandbox: listen for the proxy: %w", err)
	}
	go proxy.Serve(ln)
	undo = append(undo, func() { proxy.Close() })
	p, err := sandbox.Build(sandbox.Input{Config: sc, Roots: roots, Home: a.home(), Secrets: a.sandboxSecrets(),
		ReadOnly: sandboxReadOnly(roots), TempDir: tmp, ProxySocket: sock, Getenv: a.opts.Getenv})
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	p.NoNamespaces = noNamespaces
	sb, err = sandbox.New(p, a.opts.SandboxExe)
	if err != nil {
		cleanup()
		return nil, nil, nil, fmt.Errorf("the sandbox is on (config or --sandbox) but cannot run here: %w", err)
	}
	if p.NoNamespaces || !sb.Capabilities().UserNS {
		// No network namespace, so no bridge to the unix socket: commands
		// reach the proxy on a loopback port, the only one Landlock's TCP
		// rules let them connect to.
		tcp, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			cleanup()
			return nil, nil, nil, fmt.Errorf("sandbox: listen for the proxy on loopback: %w", err)
		}
		go proxy.Serve(tcp)
		sb = sb.WithProxyPort(tcp.Addr().(*net.TCPAddr).Port)
	}
	// The git program files a command creates are removed and said there.
	sb.OnDenial(onDenial)
	// First undone: the session's sandbox process, and every command it
	// still runs, goes before the proxy and the folders.
	undo = append(undo, func() { sb.Close() })
	return sb, proxy, cleanup, nil
}

// SandboxAllow lets the session's commands reach host (a pattern as
// sandbox.network.allow takes it: "api.example.com", "*.example.com",
// "localhost:8080") until the session ends: the allowance a network
// sandbox_denial offers. An error when the session has no sandbox or the
// pattern is bad.
func (eq *Equipment) SandboxAllow(host string) error {
	if eq.egress == nil {
		return errors.New("this session runs without the sandbox (start it with --sandbox or \"sandbox\": \"on\"), so there is no allow-list to widen")
	}
	if err := eq.egress.Allow(host); err != nil {
		return err
	}
	eq.l.Events().Emit(event.Event{Type: event.Status, Message: fmt.Sprintf("sandbox: %s allowed for this session", host),
		Meta: map[string]any{"notice": "sandbox_allow", "host": host}})
	return nil
}

// confine is the session's sandbox as the function the process starters
// take (MCP stdio servers, hooks, the claude CLI); nil when it is off.
func (eq *Equipment) confine() func(*exec.Cmd) error {
	if eq.sandbox == nil {
		return nil
	}
	return eq.sandbox.Confine
}

// sandboxReadOnly are the places inside the roots that stay read-only in
// the sandbox: where tandem and Claude Code load settings, skills, hooks
// and instructions from (internal/places), and what configures programs
// that run later (permission.ProgramPaths).
func sandboxReadOnly(roots []string) []string {
	var out []string
	for _, r := range roots {
		for _, pl := range places.Project() {
			out = append(out, pl.Path(r))
		}
		out = append(out, permission.ProgramPaths(r)...)
		// A .git file (a worktree's, a submodule's) names the git folder
		// whose configuration git follows, as .git/config does.
		if fi, err := os.Lstat(filepath.Join(r, ".git")); err == nil && fi.Mode().IsRegular() {
			out = append(out, filepath.Join(r, ".git"))
		}
	}
	return out
}
