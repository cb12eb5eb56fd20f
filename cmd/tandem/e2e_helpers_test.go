package main

// End-to-end harness: the tests in e2e_*_test.go build the real tandem
// binary once, point it at a scripted model server (real HTTP, real wire
// protocol) with a temporary TANDEM_HOME, and run it in a temporary folder.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

var tandemBin string

// e2eParallel is how many of this package's tests run at once unless
// -parallel says otherwise: an end-to-end test spends most of its time
// waiting on the processes it started (tandem, node, tmux, a scripted
// delay), so more run at once than a small machine has cores (the default).
const e2eParallel = 4

func TestMain(m *testing.M) {
	if os.Getenv(signalHelperEnv) != "" {
		os.Exit(m.Run()) // a helper process needs no tandem binary
	}
	flag.Parse()
	parallelGiven := false
	flag.Visit(func(f *flag.Flag) { parallelGiven = parallelGiven || f.Name == "test.parallel" })
	if !parallelGiven {
		_ = flag.Set("test.parallel", strconv.Itoa(max(e2eParallel, runtime.GOMAXPROCS(0))))
	}
	dir, err := os.MkdirTemp("", "tandem-e2e-bin")
	if err != nil {
		panic(err)
	}
	tandemBin = filepath.Join(dir, "tandem")
	build := exec.Command("go", "build", "-o", tandemBin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // the static binary users get
	out, err := build.CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic("build tandem: " + err.Error())
	}
	code := pgServer.Run(m) // stops the private PostgreSQL if a test started it
	os.RemoveAll(dir)
	os.Exit(code)
}

// e2e is one test's world: a scripted model, a workspace and a home.
type e2e struct {
	t      *testing.T
	srv    *scripted.Server
	url    string
	Work   string
	Home   string
	Env    []string // extra environment for every run
	Binary string
}

func newE2E(t *testing.T, script scripted.Script, opts ...scripted.Option) *e2e {
	t.Helper()
	srv, url := testfiles.Scripted(t, script, opts...)
	root := t.TempDir()
	x := &e2e{t: t, srv: srv, url: url, Work: filepath.Join(root, "work"), Home: filepath.Join(root, "home"), Binary: tandemBin}
	for _, d := range []string{x.Work, x.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Resolve symlinks (macOS /var, tmpfs links) so paths compare equal.
	x.Work, _ = filepath.EvalSymlinks(x.Work)
	return x
}

// WriteFile creates a file in the workspace.
func (x *e2e) WriteFile(rel, content string) string {
	x.t.Helper()
	return testfiles.Write(x.t, filepath.Join(x.Work, rel), content)
}

// WriteConfig writes the user's config ($TANDEM_HOME/config.json), private
// to the user as tandem keeps it.
func (x *e2e) WriteConfig(body string) string {
	x.t.Helper()
	return testfiles.WriteMode(x.t, filepath.Join(x.Home, "config.json"), body, 0o600)
}

// ReadFile reads a workspace file ("" when missing).
func (x *e2e) ReadFile(rel string) string {
	b, _ := os.ReadFile(filepath.Join(x.Work, rel))
	return string(b)
}

// runResult is one finished tandem process.
type runResult struct {
	Stdout, Stderr string
	Code           int
	Events         []event.Event // parsed stdout lines (stream-json / json)
}

// Types lists the event types in order.
func (r runResult) Types() []string {
	var out []string
	for _, e := range r.Events {
		out = append(out, string(e.Type))
	}
	return out
}

// Result is the last result event.
func (r runResult) Result() event.Event {
	for i := len(r.Events) - 1; i >= 0; i-- {
		if r.Events[i].Type == event.Result {
			return r.Events[i]
		}
	}
	return event.Event{}
}

// Command prepares a tandem process with the test's environment; stdin is
// empty unless the caller sets it.
func (x *e2e) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, x.Binary, args...)
	cmd.Dir = x.Work
	cmd.Env = append(os.Environ(),
		"TANDEM_HOME="+x.Home,
		"HOME="+x.Home,
		"ANTHROPIC_BASE_URL="+x.url,
		"ANTHROPIC_API_KEY=test-key",
		"OPENAI_BASE_URL="+x.url+"/v1",
		"OPENAI_API_KEY=test-key",
		"TANDEM_MODEL=",
		"XDG_CONFIG_HOME=", "XDG_DATA_HOME=",
	)
	cmd.Env = append(cmd.Env, x.Env...)
	cmd.Stdin = strings.NewReader("")
	return cmd
}

// startPiped starts tandem with args, its stdin and stdout held by the
// test and its stderr collected (read it once the process has ended).
func (x *e2e) startPiped(ctx context.Context, args ...string) (cmd *exec.Cmd, in io.WriteCloser, out io.ReadCloser, stderr *strings.Builder) {
	x.t.Helper()
	cmd = x.Command(ctx, args...)
	cmd.Stdin = nil
	in, err := cmd.StdinPipe()
	if err != nil {
		x.t.Fatal(err)
	}
	out, err = cmd.StdoutPipe()
	if err != nil {
		x.t.Fatal(err)
	}
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		x.t.Fatal(err)
	}
	return cmd, in, out, stderr
}

// Run runs tandem to completion (60 s limit) and parses its JSON output.
func (x *e2e) Run(args ...string) runResult {
	x.t.Helper()
	return x.runWith(nil, args...)
}

// runWith is Run with the process attributes given (nil: inherited).
func (x *e2e) runWith(attr *syscall.SysProcAttr, args ...string) runResult {
	x.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := x.Command(ctx, args...)
	cmd.SysProcAttr = attr
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := runResult{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.Code = ee.ExitCode()
	} else if err != nil {
		x.t.Fatalf("run tandem %v: %v", args, err)
	}
	res.Events = parseEvents(stdout.Bytes())
	return res
}

// RunStream runs a turn with --output-format stream-json and the default
// model, plus args.
func (x *e2e) RunStream(prompt string, args ...string) runResult {
	x.t.Helper()
	return x.Run(streamArgs(prompt, args...)...)
}

func parseEvents(b []byte) []event.Event {
	var out []event.Event
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event.Event
		if json.Unmarshal(line, &e) == nil && e.Type != "" {
			out = append(out, e)
		}
	}
	return out
}

// mustSucceed fails the test unless the run exited 0 with a success result.
func mustSucceed(t *testing.T, r runResult) {
	t.Helper()
	if r.Code != 0 || r.Result().IsError {
		t.Fatalf("tandem failed (exit %d)\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}
