package main

// Helpers shared by the e2e_feature_*_test.go files.

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

func needProgram(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed: this test runs it", name)
	}
}

// toolResults maps tool_use ids to their tool_result events.
func toolResults(r runResult) map[string]event.Event {
	out := map[string]event.Event{}
	for _, e := range r.Events {
		if e.Type == event.ToolResult {
			out[e.ToolUseID] = e
		}
	}
	return out
}

// metaInt reads a JSON number from an event's meta (-1 when absent).
func metaInt(m map[string]any, key string) int {
	switch v := m[key].(type) {
	case float64:
		return int(v)
	case json.Number:
		n, _ := v.Int64()
		return int(n)
	}
	return -1
}

// treeSnapshot lists every file under dir with its content (folders as
// "dir/"), to prove a run changed nothing.
func treeSnapshot(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			lines = append(lines, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines = append(lines, rel+": "+string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// writeJSONFile writes v as JSON to path, creating folders.
func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// RunDetached is Run in a new session (setsid): the process has no
// controlling terminal, so /dev/tty cannot be opened and nobody can be
// asked, whatever terminal the test runner has.
func (x *e2e) RunDetached(args ...string) runResult {
	x.t.Helper()
	return x.runWith(&syscall.SysProcAttr{Setsid: true}, args...)
}

// streamArgs are RunStream's arguments, for RunDetached.
func streamArgs(prompt string, args ...string) []string {
	return append([]string{"run", "-p", prompt, "--output-format", "stream-json", "--model", "anthropic/claude-sonnet-5-5"}, args...)
}

// deniedIDs lists the tool_use ids in the result's permission_denials.
func deniedIDs(r runResult) map[string]event.Denial {
	out := map[string]event.Denial{}
	for _, d := range r.Result().PermissionDenials {
		out[d.ToolUseID] = d
	}
	return out
}

// lastRequestBody is the raw body of the last main request the model got.
func (x *e2e) lastRequestBody() string {
	reqs := x.srv.MainRequests()
	if len(reqs) == 0 {
		return ""
	}
	return string(reqs[len(reqs)-1].RawBody)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// runIn runs a program in dir (setup steps such as git init).
func runIn(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// newE2EFor is newE2E for a script that needs the workspace's absolute
// path (Claude Code's file tools take only absolute paths).
func newE2EFor(t *testing.T, build func(work string) scripted.Script, opts ...scripted.Option) *e2e {
	t.Helper()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	work, _ = filepath.EvalSymlinks(work)
	srv, url := testfiles.Scripted(t, build(work), opts...)
	x := &e2e{t: t, srv: srv, url: url, Work: work, Home: filepath.Join(root, "home"), Binary: tandemBin}
	if err := os.MkdirAll(x.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	return x
}

// delegateScript is a parent that starts one sub-agent (tool_use id "a1",
// the Agent call with description and prompt) and then says after; the
// child's requests, told apart by match (a word of prompt), get child.
func delegateScript(description, prompt, match, after string, child ...scripted.Step) scripted.Script {
	return scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": description, "prompt": prompt})),
			scripted.TextStep(after),
		},
		Threads: []scripted.Thread{{Match: match, Steps: child}},
	}
}
