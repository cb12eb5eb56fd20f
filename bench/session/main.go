// Command session measures tandem end to end: a scripted 30-step session
// (each step calls Read, Grep and Bash once, then a final answer) run with
// `tandem run` against the scripted model server, which answers at once.
// It prints wall time, CPU time, peak RSS and tandem's own overhead per
// step against the project's targets, plus the time of `tandem --version`.
//
//	go run ./bench/session [-runs 5] [-steps 30] [-files 300] [-version-runs 20]
//
// Method (see docs/benchmarks.md): the same tool work is also done without
// tandem (the file read in-process, the same rg invocation, the same
// command through bash, sequentially); tandem's own overhead per step is
// (median session wall − median baseline wall) / steps. Startup is part of
// that overhead; a one-step text-only run shows how much of it is startup.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/store/pgtest"
)

type config struct {
	runs, steps, files, versionRuns int
	tandem, model                   string
	keep                            bool
	database                        string // TANDEM_DATABASE_URL for the runs; "": the SQLite file
}

func main() {
	var c config
	flag.IntVar(&c.runs, "runs", 5, "measured session runs (after one warm-up run)")
	flag.IntVar(&c.steps, "steps", 30, "tool steps in the session (each calls Read, Grep and Bash)")
	flag.IntVar(&c.files, "files", 300, "files in the generated workspace")
	flag.IntVar(&c.versionRuns, "version-runs", 20, "runs of tandem --version")
	flag.StringVar(&c.tandem, "tandem", "", "tandem binary to measure (default: build ./cmd/tandem)")
	flag.StringVar(&c.model, "scripted-model", "", "scripted-model binary (default: build ./cmd/scripted-model)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary folder (binaries, workspace, home, scripts)")
	flag.StringVar(&c.database, "database", "", "store the sessions in this database (postgres://...) instead of the SQLite file")
	otel := flag.Bool("otel", false, "export telemetry (OTLP/HTTP, every signal) to a local sink; without it telemetry is off whatever OTEL_* this shell has")
	postgres := flag.Bool("postgres", false, "store the sessions in a private PostgreSQL started for the run (initdb; needs PostgreSQL's binaries)")
	flag.Parse()
	stopPG := func() error { return nil }
	if *postgres {
		url, stop, err := pgtest.Private(pgtest.Options{Durable: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/session:", err)
			os.Exit(1)
		}
		c.database, stopPG = url, stop
	}
	if err := c.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/session:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// Every tandem run inherits this process's environment (tandemEnv):
	// the database the runs store into, "" for the SQLite file.
	os.Setenv("TANDEM_DATABASE_URL", c.database)
	var sink *otelSink
	if *otel {
		var err error
		if sink, err = startOtelSink(); err != nil {
			fmt.Fprintln(os.Stderr, "bench/session:", err)
			os.Exit(1)
		}
	}
	setTelemetryEnv(sink)
	err := run(ctx, c)
	if sink != nil {
		fmt.Printf("telemetry: on, OTLP/HTTP to a local sink: %d exports, %d bytes\n", sink.exports.Load(), sink.bytes.Load())
	} else {
		fmt.Println("telemetry: off")
	}
	if perr := stopPG(); err == nil {
		err = perr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/session:", err)
		os.Exit(1)
	}
}

func (c config) validate() error {
	switch {
	case c.runs < 1:
		return fmt.Errorf("-runs %d: need at least 1", c.runs)
	case c.steps < 1:
		return fmt.Errorf("-steps %d: need at least 1", c.steps)
	case c.files < filesPerPkg:
		return fmt.Errorf("-files %d: need at least %d", c.files, filesPerPkg)
	case c.versionRuns < 1:
		return fmt.Errorf("-version-runs %d: need at least 1", c.versionRuns)
	}
	return nil
}

func run(ctx context.Context, c config) error {
	tmp, err := os.MkdirTemp("", "tandem-bench-session-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintln(os.Stderr, "keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if c.tandem == "" || c.model == "" {
		root, err := moduleRoot(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "building tandem and scripted-model...")
		t, m, err := buildBinaries(ctx, root, tmp)
		if err != nil {
			return err
		}
		c.tandem, c.model = firstSet(c.tandem, t), firstSet(c.model, m)
	}
	work, home := filepath.Join(tmp, "work"), filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	if err := writeWorkspace(work, c.files); err != nil {
		return err
	}
	res, err := measureAll(ctx, c, tmp, work, home)
	if err != nil {
		return err
	}
	res.print(os.Stdout)
	return nil
}

// results holds every sample taken.
type results struct {
	steps                           int
	session, startup, base, version []sample
	// installedSession and installedVersion are the same runs of the
	// installed copy (see installCopy).
	installedSession, installedVersion []sample
	rg                                 string
	prompt                             promptSize
}

func measureAll(ctx context.Context, c config, tmp, work, home string) (*results, error) {
	calls := sessionSteps(c.steps, c.files)
	sessionScriptPath, startupScriptPath := filepath.Join(tmp, "session.json"), filepath.Join(tmp, "startup.json")
	if err := writeScript(sessionScriptPath, sessionScript(calls)); err != nil {
		return nil, err
	}
	if err := writeScript(startupScriptPath, sessionScript(nil)); err != nil {
		return nil, err
	}
	sessSrv, err := startModel(c.model, sessionScriptPath)
	if err != nil {
		return nil, err
	}
	defer sessSrv.stop()
	startSrv, err := startModel(c.model, startupScriptPath)
	if err != nil {
		return nil, err
	}
	defer startSrv.stop()

	rg, _ := exec.LookPath("rg")
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, fmt.Errorf("bash is needed for the session's Bash steps: %w", err)
	}
	installed, err := installCopy(c.tandem, filepath.Join(tmp, "tandem-installed"))
	if err != nil {
		return nil, err
	}
	r := &results{steps: c.steps, rg: rg}
	fmt.Fprintln(os.Stderr, "warm-up run...")
	if _, err := runSession(ctx, c.tandem, work, home, sessSrv.url, c.steps+1); err != nil {
		return nil, err
	}
	if r.prompt, err = measurePrompt(ctx, c.tandem, work, home, calls); err != nil {
		return nil, fmt.Errorf("prompt size: %w", err)
	}
	b := bins{tandem: c.tandem, installed: installed, rg: rg, bash: bash, work: work, home: home, sessionURL: sessSrv.url, startupURL: startSrv.url}
	for i := 0; i < c.runs; i++ {
		fmt.Fprintf(os.Stderr, "run %d/%d...\n", i+1, c.runs)
		if err := r.measureRun(ctx, b, calls); err != nil {
			return nil, err
		}
	}
	for i := 0; i < c.versionRuns; i++ {
		if err := r.measureVersion(b); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// bins is what one measured run needs: the two binaries, the tools of the
// baseline, the folders and the two model servers.
type bins struct {
	tandem, installed, rg, bash string
	work, home                  string
	sessionURL, startupURL      string
}

// measureRun takes one sample of each: the session as linked and read
// from disk, the one-step run, and the baseline right after.
func (r *results) measureRun(ctx context.Context, b bins, calls []stepCalls) error {
	s, err := runSession(ctx, b.tandem, b.work, b.home, b.sessionURL, r.steps+1)
	if err != nil {
		return err
	}
	r.session = append(r.session, s)
	if s, err = runSession(ctx, b.installed, b.work, b.home, b.sessionURL, r.steps+1); err != nil {
		return err
	}
	r.installedSession = append(r.installedSession, s)
	if s, err = runSession(ctx, b.tandem, b.work, b.home, b.startupURL, 1); err != nil {
		return err
	}
	r.startup = append(r.startup, s)
	if s, err = baseline(ctx, b.rg, b.bash, b.work, calls); err != nil {
		return err
	}
	r.base = append(r.base, s)
	return nil
}

// measureVersion times `tandem --version` once for each binary.
func (r *results) measureVersion(b bins) error {
	s, err := timeVersion(b.tandem)
	if err != nil {
		return err
	}
	r.version = append(r.version, s)
	if s, err = timeVersion(b.installed); err != nil {
		return err
	}
	r.installedVersion = append(r.installedVersion, s)
	return nil
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
