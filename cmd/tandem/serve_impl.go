package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/session"
)

type serveFlags struct {
	addr, token, database               string
	tokenFile                           string
	allowHost, allowOrig                []string
	model, runtime, mode                string
	verbose, trustProject, requireTrust bool
	sandbox                             sandboxFlags
	workspaces                          []string
	drainTimeout                        time.Duration
}

func newServeCommand(g *globalFlags) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (server-sent events) and the web UI",
		Long: "Serve tandem's HTTP API and web UI. Every request needs the bearer token: generated at first start, " +
			"stored with mode 0600 in the data folder and printed once; set it with --token-file or TANDEM_TOKEN " +
			"(--token works too, but a command line is readable by every user of the machine: tandem moves it out of its own at start).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return serve(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:7337", "address to listen on")
	fl.StringVar(&f.token, "token", "", "bearer token; prefer --token-file or TANDEM_TOKEN, a command line is readable by every user")
	fl.StringVar(&f.tokenFile, "token-file", "", "file holding the bearer token (default: TANDEM_TOKEN, else the stored one)")
	fl.StringSliceVar(&f.allowHost, "allow-host", nil, "extra Host names to accept (behind a proxy)")
	fl.StringSliceVar(&f.allowOrig, "allow-origin", nil, "extra browser origins allowed to call the API (enables CORS for them)")
	fl.StringVar(&f.model, "model", "", "default model for new sessions")
	fl.StringVar(&f.runtime, "runtime", "", "default runtime for new sessions: "+runtimes.List())
	fl.StringVar(&f.mode, "permission-mode", "", "default permission mode for new sessions: "+permission.ModeList())
	fl.BoolVar(&f.verbose, "verbose", false, "log requests and turns to stderr")
	f.sandbox.add(fl)
	fl.BoolVar(&f.requireTrust, "require-trust", false, "refuse sessions in untrusted folders whose project files set what needs trust (default: run without those settings and say which)")
	fl.BoolVar(&f.trustProject, "trust-project", false, "trust every session folder's project files (registering a workspace does not trust it; see `tandem trust`)")
	fl.StringVar(&f.database, "database", "", "where sessions are stored: a SQLite file, sqlite:PATH or postgres://user@host/db (default: TANDEM_DATABASE_URL, the \"database\" setting, else tandem.db in the data folder); keep passwords out of the command line (TANDEM_DATABASE_URL, ~/.pgpass)")
	fl.StringSliceVar(&f.workspaces, "workspace", nil, "register these folders as workspaces agents may run in (also possible from the UI)")
	fl.DurationVar(&f.drainTimeout, "drain-timeout", server.DefaultDrainTimeout, "on SIGTERM, how long running turns may go on to finish before they are interrupted and handed over to another replica (alone: ended as interrupted); the process exits at the latest 10 s after it")
	return cmd
}

// readTokenFile reads --token-file: the token is the file's content
// without surrounding white space.
func readTokenFile(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	data, _, err := regular.ReadCapped(path, 4096)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(data))
	if tok == "" {
		return "", fmt.Errorf("--token-file %s is empty: write the token into it", path)
	}
	return tok, nil
}

func serve(cmd *cobra.Command, g *globalFlags, f *serveFlags) error {
	sbMode, err := f.sandbox.mode()
	if err != nil {
		return err
	}
	a, err := app.Open(app.Options{Home: g.home, Version: version(), Stderr: cmd.ErrOrStderr(), TrustProject: f.trustProject, RequireTrust: f.requireTrust, Sandbox: sbMode, Database: f.database})
	if err != nil {
		return err
	}
	if on, err := teamSandbox(cmd.Context(), a, sbMode, cmd.ErrOrStderr()); err != nil {
		a.Close()
		return err
	} else if on {
		// The sandbox is chosen when the application opens: open it again.
		a.Close()
		if a, err = app.Open(app.Options{Home: g.home, Version: version(), Stderr: cmd.ErrOrStderr(), TrustProject: f.trustProject, RequireTrust: f.requireTrust, Sandbox: "on", Database: f.database}); err != nil {
			return err
		}
	}
	defer a.Close()
	sayStaleCatalog(cmd.ErrOrStderr(), a)
	if f.runtime != "" {
		if _, err := runtimes.Parse(f.runtime); err != nil {
			return fmt.Errorf("--runtime: %w", err)
		}
	}
	if f.mode != "" {
		if _, err := permission.ParseMode(f.mode); err != nil {
			return fmt.Errorf("--permission-mode: %w", err)
		}
	}
	fileToken, err := readTokenFile(f.tokenFile)
	if err != nil {
		return err
	}
	// A --token given on the command line arrives as TANDEM_TOKEN after
	// the start-up hand-over (startup.go); f.token is set only where the
	// hand-over cannot run.
	token := firstNonEmpty(f.token, fileToken, os.Getenv("TANDEM_TOKEN"))
	if fileToken != "" {
		// As TANDEM_TOKEN it is a known secret: scrubbed from every
		// command's environment and blanked in their output.
		os.Setenv("TANDEM_TOKEN", fileToken)
	}
	created := false
	if token == "" {
		if token, created, err = server.LoadOrCreateToken(a.Paths.TokenFile()); err != nil {
			return err
		}
	}
	for _, dir := range f.workspaces {
		abs, err := absCwd(dir)
		if err != nil {
			return fmt.Errorf("--workspace %s: %w", dir, err)
		}
		if _, err := a.Store.AddWorkspace(cmd.Context(), abs); err != nil {
			return fmt.Errorf("--workspace %s: %w", dir, err)
		}
	}
	if f.drainTimeout <= 0 {
		return fmt.Errorf("--drain-timeout must be more than 0 (got %v): e.g. 5s, or 2m for long turns", f.drainTimeout)
	}
	if err := server.ValidateToken(token); err != nil {
		return fmt.Errorf("--token: %w", err)
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	// A database several replicas can share gets the stored event log in
	// front of every SSE client (docs/api.md, Replicas); the SQLite file,
	// one process's, keeps events in memory, where they reach clients
	// without a write first.
	var eventLog server.EventLog
	if info, err := a.Store.Info(cmd.Context()); err == nil && info.Backend != "sqlite" {
		eventLog = a.Store
	}
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
	// Turns are durable workflows any replica may take (serve_turns.go).
	replica := server.NewReplicaID()
	turns, err := openTurns(cmd.Context(), a, replica, logger.With("replica", replica, "component", "turnqueue"))
	if err != nil {
		return err
	}
	// After the server drained: turns still running are left pending for
	// the other replicas (or this install's next start) to resume.
	defer func() { _ = turns.Close(2 * time.Second) }()
	opts := server.Options{
		Manager: a.Manager, Workspaces: a.Store, EventLog: eventLog, Replicas: a.Store, Token: token, DataDir: a.Paths.DataDir,
		Turns: turns, ReplicaID: replica, DrainTimeout: f.drainTimeout,
		AllowedHosts: f.allowHost, AllowedOrigins: f.allowOrig,
		Catalog: app.ServerCatalog{App: a}, Trust: a, Checkpoints: a.Checkpoints, Extensions: a,
		Logger: logger,
		// Only flags here: what they leave out, each session's folder
		// configuration decides (app.ResolveSettings).
		DefaultModel: f.model, DefaultRuntime: f.runtime, DefaultMode: f.mode,
		Middleware: a.Telemetry().Middleware,
	}
	if err := teamOptions(a, &opts); err != nil {
		return err
	}
	srv, err := server.New(opts)
	if err != nil {
		return err
	}
	w := cmd.ErrOrStderr()
	fmt.Fprintf(w, "tandem serve: http://%s/\n", f.addr)
	if created {
		fmt.Fprintf(w, "tandem serve: new access token (shown once; stored in %s):\n  %s\n  open http://%s/login#token=%s\n",
			a.Paths.TokenFile(), token, f.addr, token)
	}
	// SIGTERM: the drain, then the usual clean-up deadline.
	ctx, stop := signalContextWithin(cmd.Context(), f.drainTimeout+cleanupDeadline, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The user config's chat bridges run beside the server on the
	// server's own sessions (one live session per id: a chat's turns go
	// through its queue, their events and questions reach the web UI and
	// the chat alike), and stop with it.
	bctx, stopBridges := context.WithCancel(ctx)
	waitBridges, _, err := startBridges(bctx, a, w, func(platform string, c config.BridgeCommon) (session.Host, error) {
		return srv.Host(ctx, server.HostOptions{Owner: c.Owner, Actor: "bridge:" + platform, Folders: c.Folders})
	})
	if err != nil {
		stopBridges()
		return err
	}
	defer waitBridges()
	defer stopBridges()
	return srv.ListenAndServe(ctx, f.addr)
}
