package claudecode

import (
	"context"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
	"github.com/tandem-agent/tandem/internal/turn"
)

// cliPath is the pinned CLI installed by `npm ci` in testdeps.
func cliPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../testdeps/node_modules/.bin/claude")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("Claude Code CLI not installed at %s (run `cd testdeps && npm ci`); skipping real-CLI test", p)
	}
	return p
}

// testWriter sends the runtime's debug log to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// checkerFunc adapts a function to permission.Checker.
type checkerFunc func(context.Context, permission.Request) (permission.Decision, error)

func (f checkerFunc) Check(ctx context.Context, r permission.Request) (permission.Decision, error) {
	return f(ctx, r)
}

// recordingChecker allows everything but Write (when denyWrites) and
// remembers what it was asked.
type recordingChecker struct {
	mu         sync.Mutex
	asked      []permission.Request
	denyWrites bool
}

func (c *recordingChecker) Check(_ context.Context, r permission.Request) (permission.Decision, error) {
	c.mu.Lock()
	c.asked = append(c.asked, r)
	c.mu.Unlock()
	if c.denyWrites && r.Tool == "Write" {
		return permission.Decision{Behavior: permission.Deny, Message: "writes are not allowed here", Rule: "test"}, nil
	}
	return permission.Decision{Behavior: permission.Allow, Rule: "test"}, nil
}

func (c *recordingChecker) tools() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.asked {
		out = append(out, r.Tool)
	}
	return out
}

// harness runs turns of the real CLI against a scripted server in a temp
// workspace with a temp HOME.
type harness struct {
	t      *testing.T
	srv    *scripted.Server
	url    string
	work   string
	cfg    Config
	opts   Options
	rec    *turntest.Recorder
	events *turntest.Events
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	path := cliPath(t)
	home := t.TempDir()
	work := t.TempDir()
	// The CLI resolves symlinks in its cwd; compare against the real path.
	if real, err := filepath.EvalSymlinks(work); err == nil {
		work = real
	}
	h := &harness{
		t: t, work: work, rec: &turntest.Recorder{}, events: &turntest.Events{},
		cfg: Config{
			Path:             path,
			FirstByteTimeout: Duration(90 * time.Second),
			TurnTimeout:      Duration(180 * time.Second), // a loaded CI machine starts the CLI slowly
			Env: map[string]string{
				"HOME":                home,
				"CLAUDE_CONFIG_DIR":   filepath.Join(home, ".claude"),
				"DISABLE_AUTOUPDATER": "1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
				"DISABLE_TELEMETRY":                        "1",
				"DISABLE_ERROR_REPORTING":                  "1",
			},
		},
		opts: Options{ProviderName: "anthropic", APIKey: "test-key",
			Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))},
	}
	return h
}

// start serves script; call it once the workspace files (whose paths the
// script names) exist.
func (h *harness) start(script scripted.Script, opts ...scripted.Option) {
	h.t.Helper()
	h.srv, h.url = testfiles.Scripted(h.t, script, opts...)
	h.opts.BaseURL = h.url
}

func (h *harness) input(prompt string) turn.Input {
	return turn.Input{
		SessionID: "sess-test", Prompt: prompt, Cwd: h.work, Roots: []string{h.work},
		Model: "anthropic/claude-sonnet-5-5", Mode: permission.Normal,
	}
}

func (h *harness) run(ctx context.Context, rt *Runtime, in turn.Input, checker permission.Checker) event.Event {
	h.t.Helper()
	em := event.NewEmitter(in.SessionID, 0, h.events)
	res, err := rt.RunTurn(ctx, in, turn.Deps{Events: em, Recorder: h.rec, Checker: checker})
	if err != nil {
		h.t.Fatalf("RunTurn: %v", err)
	}
	return res
}

func (h *harness) writeFile(name, content string) string {
	p := filepath.Join(h.work, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}
