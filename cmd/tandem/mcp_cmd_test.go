package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/trust"
)

type env struct {
	deps   mcpDeps
	stdout *bytes.Buffer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	out := &bytes.Buffer{}
	e := &env{stdout: out, deps: mcpDeps{
		UserConfig: filepath.Join(root, "xdg", "tandem", "config.json"),
		ProjectDir: filepath.Join(root, "project"),
		DataDir:    filepath.Join(root, "data"),
		Stdout:     out, Stderr: out,
	}}
	if err := os.MkdirAll(e.deps.ProjectDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	e.stdout.Reset()
	c := newMCPCommand(e.deps)
	c.SetArgs(args)
	err := c.Execute()
	return e.stdout.String(), err
}

func (e *env) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := e.run(t, args...)
	if err != nil {
		t.Fatalf("tandem mcp %v: %v\n%s", args, err, out)
	}
	return out
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAddListRemovePreservesOtherKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Dir(e.deps.UserConfig), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.deps.UserConfig, []byte(`{"model": "claude-x", "permissions": {"allow": ["Read"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustRun(t, "add", "--scope", "user", "-e", "KEY=${MY_KEY}", "--timeout", "30", "fs", "npx", "-y", "@modelcontextprotocol/server-filesystem", ".")
	e.mustRun(t, "add", "-t", "http", "-H", "Authorization: Bearer ${TOKEN}", "docs", "https://example.com/mcp")
	e.mustRun(t, "add", "sock", "ws://localhost:9/ws")
	e.mustRun(t, "add-json", "--scope", "project", "shared", `{"command":"node","args":["s.js"]}`)

	user := readJSON(t, e.deps.UserConfig)
	if user["model"] != "claude-x" || user["permissions"] == nil {
		t.Fatalf("other keys lost: %v", user)
	}
	fs := user["mcpServers"].(map[string]any)["fs"].(map[string]any)
	if fs["command"] != "npx" || len(fs["args"].([]any)) != 3 || fs["env"].(map[string]any)["KEY"] != "${MY_KEY}" || fs["timeout"] != 30.0 {
		t.Fatalf("fs entry: %v", fs)
	}
	local := readJSON(t, filepath.Join(e.deps.ProjectDir, ".tandem", "config.json"))
	docs := local["mcpServers"].(map[string]any)["docs"].(map[string]any)
	if docs["type"] != "http" || docs["headers"].(map[string]any)["Authorization"] != "Bearer ${TOKEN}" {
		t.Fatalf("docs entry: %v", docs)
	}
	if local["mcpServers"].(map[string]any)["sock"].(map[string]any)["type"] != "ws" {
		t.Fatalf("ws type not inferred: %v", local)
	}

	out := e.mustRun(t, "list")
	for _, want := range []string{"fs", "user", "docs", "local", "http", "sock", "ws", "shared", "project", "enabled"} {
		if !strings.Contains(out, want) {
			t.Fatalf("list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "needs approval") {
		t.Fatalf("servers added by the user need no approval:\n%s", out)
	}

	if _, err := e.run(t, "add", "fs", "x"); err != nil {
		t.Fatalf("same name in another scope is allowed: %v", err)
	}
	if _, err := e.run(t, "add", "fs", "x"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate add: %v", err)
	}
	if _, err := e.run(t, "remove", "fs"); err == nil || !strings.Contains(err.Error(), "--scope") {
		t.Fatalf("ambiguous remove: %v", err)
	}
	e.mustRun(t, "remove", "fs", "--scope", "user")
	user = readJSON(t, e.deps.UserConfig)
	if _, ok := user["mcpServers"].(map[string]any)["fs"]; ok || user["model"] != "claude-x" {
		t.Fatalf("remove: %v", user)
	}
	if _, err := e.run(t, "remove", "nothere"); err == nil || !strings.Contains(err.Error(), `no mcp server named "nothere"`) {
		t.Fatalf("remove unknown: %v", err)
	}
}

func TestAddRejectsBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cases := [][]string{
		{"add", "-t", "sse", "x", "not-a-url"},
		{"add", "-e", "NOEQUALS", "x", "cmd"},
		{"add", "--scope", "galaxy", "x", "cmd"},
		{"add", "bad name", "cmd"},
		{"add-json", "x", `{"type":"http"}`},
	}
	for _, c := range cases {
		if _, err := e.run(t, c...); err == nil {
			t.Errorf("%v: want an error", c)
		}
	}
}

func TestEnableDisableProjectAndOwnServers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mcpJSON := filepath.Join(e.deps.ProjectDir, ".mcp.json")
	if err := os.WriteFile(mcpJSON, []byte(`{"mcpServers": {"cloned": {"command": "evil"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := e.mustRun(t, "list"); !strings.Contains(out, "needs approval") {
		t.Fatalf("a cloned .mcp.json server must need approval:\n%s", out)
	}
	e.mustRun(t, "enable", "cloned")
	if !mcp.NewFileApprovals(e.deps.DataDir).Approved(e.deps.ProjectDir, "cloned") {
		t.Fatal("enable did not approve")
	}
	if out := e.mustRun(t, "list"); strings.Contains(out, "needs approval") {
		t.Fatalf("still needs approval:\n%s", out)
	}
	before, _ := os.ReadFile(mcpJSON)
	e.mustRun(t, "disable", "cloned")
	after, _ := os.ReadFile(mcpJSON)
	if string(before) != string(after) {
		t.Fatal("disable must not edit the shared .mcp.json")
	}
	if out := e.mustRun(t, "list"); !strings.Contains(out, "needs approval") {
		t.Fatalf("disable did not withdraw approval:\n%s", out)
	}

	e.mustRun(t, "add", "--scope", "user", "mine", "node", "m.js")
	e.mustRun(t, "disable", "mine")
	if m := readJSON(t, e.deps.UserConfig)["mcpServers"].(map[string]any)["mine"].(map[string]any); m["disabled"] != true {
		t.Fatalf("disable: %v", m)
	}
	if out := e.mustRun(t, "list"); !strings.Contains(out, "disabled") {
		t.Fatalf("list:\n%s", out)
	}
	e.mustRun(t, "enable", "mine")
	if m := readJSON(t, e.deps.UserConfig)["mcpServers"].(map[string]any)["mine"].(map[string]any); m["disabled"] != nil {
		t.Fatalf("enable: %v", m)
	}
}

func TestTestCommand(t *testing.T) {
	t.Parallel()
	bin, _ := filepath.Abs(filepath.Join("..", "..", "..", "testdeps", "node_modules", ".bin", "mcp-server-everything"))
	if _, err := os.Stat(bin); err != nil {
		t.Skip("mcp-server-everything not installed: run `cd testdeps && npm ci` (CI installs it)")
	}
	e := newEnv(t)
	e.mustRun(t, "add", "ev", bin)
	out := e.mustRun(t, "test", "ev")
	for _, want := range []string{"✓ ev connected in", "mcp__ev__echo [read-only]", "Resources (", "simple-prompt"} {
		if !strings.Contains(out, want) {
			t.Fatalf("test output lacks %q:\n%s", want, out)
		}
	}

	script := filepath.Join(t.TempDir(), "bad.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'boom: missing API key' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.mustRun(t, "add", "bad", script)
	out, err := e.run(t, "test", "bad", "--wait", "10s")
	if err == nil || !strings.Contains(out, "✗ bad: failed") || !strings.Contains(out, "boom: missing API key") {
		t.Fatalf("failing test: %v\n%s", err, out)
	}
}

// `tandem mcp test` of a project server whose entry references ${VAR} used
// to expand the user's environment into it in any folder.
func TestTestCommandNeedsTrustForVarRefs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.deps.LookupEnv = func(k string) (string, bool) { return "sk-secret", k == "ANTHROPIC_API_KEY" }
	p := filepath.Join(e.deps.ProjectDir, ".mcp.json")
	if err := os.WriteFile(p, []byte(`{"mcpServers":{"cap":{"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer ${ANTHROPIC_API_KEY}"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := e.run(t, "test", "cap", "--wait", "1s")
	if err == nil || !strings.Contains(err.Error(), "mcpServers.cap.headers.Authorization") || !strings.Contains(err.Error(), "tandem trust "+e.deps.ProjectDir) {
		t.Fatalf("untrusted: %v", err)
	}
	if _, err := trust.NewStore(e.deps.DataDir).Add(e.deps.ProjectDir); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t, "test", "cap", "--wait", "1s"); err != nil && strings.Contains(err.Error(), "not trusted") {
		t.Errorf("trusted folder still refused: %v", err)
	}
}
