package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools/fs"
)

// repoRoot is the module's folder, where .ci/run installs gopls (bin/)
// and the npm servers (testdeps/node_modules/.bin).
func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func binDirs(t *testing.T) []string {
	root := repoRoot(t)
	return []string{filepath.Join(root, "bin"), filepath.Join(root, "testdeps", "node_modules", ".bin")}
}

// need skips the test when server's program is absent, unless
// TANDEM_REQUIRE_LSP is set (.ci/run sets it), where it fails.
func need(t *testing.T, name string) Settings {
	t.Helper()
	s, err := Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range s.Servers {
		if srv.Name != name {
			continue
		}
		if _, err := findCommand(srv, os.Getenv("PATH"), binDirs(t)); err != nil {
			msg := err.Error() + " (.ci/run installs it: gopls into bin/, the npm servers into testdeps, clangd with apt)"
			if os.Getenv("TANDEM_REQUIRE_LSP") != "" {
				t.Fatal("TANDEM_REQUIRE_LSP is set: " + msg)
			}
			t.Skip(msg)
		}
		// Cold starts on a loaded machine take a while: the wait is a
		// deadline, not a duration the test measures.
		s.WaitMS, s.StartMS, s.SettleMS = 60000, 120000, 3000
		return s
	}
	t.Fatalf("no built-in server %s", name)
	return s
}

// testSecret stands for a secret value the session's redactor knows.
const testSecret = "sk-test-0123456789abcdef"

type harness struct {
	t      *testing.T
	dir    string
	m      *Manager
	env    *tool.Env
	tools  map[string]tool.Tool
	events []event.Event
}

func newHarness(t *testing.T, s Settings, files map[string]string) *harness {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := &harness{t: t, dir: dir, tools: map[string]tool.Tool{}}
	h.m = New(Options{Settings: s, Roots: []string{dir}, Env: os.Environ(), BinDirs: binDirs(t),
		Notice: func(msg string) { t.Log("notice: " + msg) },
		Redact: strings.NewReplacer(testSecret, "[secret]").Replace})
	t.Cleanup(h.m.Close)
	h.env = tool.NewEnv("ses_test", dir, nil, t.TempDir())
	h.env.Emit = func(e event.Event) { h.events = append(h.events, e) }
	for _, x := range WrapTools(h.m, []tool.Tool{fs.NewRead(), fs.NewEdit(), fs.NewWrite()}) {
		h.tools[x.Name()] = x
	}
	return h
}

func (h *harness) call(name string, input map[string]any) string {
	h.t.Helper()
	raw, _ := json.Marshal(input)
	res, err := h.tools[name].Execute(context.Background(), tool.Call{ID: "toolu_1", Name: name, Input: raw, Env: h.env})
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		h.t.Fatalf("%s failed: %s", name, res.Content)
	}
	return res.Content
}

func (h *harness) read(name string) {
	h.call("Read", map[string]any{"file_path": filepath.Join(h.dir, name)})
}

func (h *harness) edit(name, old, new string) string {
	h.t.Helper()
	return h.call("Edit", map[string]any{"file_path": filepath.Join(h.dir, name), "old_string": old, "new_string": new})
}

func mustHave(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("the result lacks %q:\n%s", w, got)
		}
	}
}

func mustNotHave(t *testing.T, got string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(got, b) {
			t.Fatalf("the result has %q:\n%s", b, got)
		}
	}
}
