package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/testfiles"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	return testfiles.Write(t, filepath.Join(dir, name), body)
}

func TestLoadProjectFileReportsBadEntries(t *testing.T) {
	p := writeFile(t, t.TempDir(), ".mcp.json", `{
	  "mcpServers": {
	    "good": {"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}, "timeout": 30},
	    "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"A": "b"}, "timeout": "90s"},
	    "badargs": {"command": "x", "args": "not-a-list"},
	    "badtype": {"type": "carrier-pigeon", "url": "https://x"},
	    "nourl": {"type": "sse"},
	    "nocmd": {"args": ["a"]},
	    "wsbad": {"type": "ws", "url": "http://x"},
	    "badtimeout": {"command": "x", "timeout": true},
	    "bad name": {"command": "x"}
	  }
	}`)
	servers, errs := LoadProjectFile(p)
	if got := strings.Join(servers.Names(), ","); got != "good,remote" {
		t.Fatalf("good servers = %s", got)
	}
	if servers["good"].Scope != ScopeProject || servers["good"].File != p {
		t.Fatalf("scope/file not recorded: %+v", servers["good"])
	}
	if servers["good"].CallTimeout() != 30*time.Second || servers["remote"].CallTimeout() != 90*time.Second {
		t.Fatalf("timeouts: %v %v", servers["good"].CallTimeout(), servers["remote"].CallTimeout())
	}
	want := map[string]string{
		"badargs":    "mcpServers.badargs.args: must be an array of strings",
		"badtype":    `mcpServers.badtype.type: unknown type "carrier-pigeon"`,
		"nourl":      "mcpServers.nourl.url: a sse server needs a url",
		"nocmd":      "mcpServers.nocmd.command: a stdio server needs a command",
		"wsbad":      "mcpServers.wsbad.url: \"http://x\" is not an absolute ws:// or wss:// url",
		"badtimeout": "mcpServers.badtimeout.timeout: must be seconds",
		"bad name":   "may only contain letters",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(errs), len(want), errs)
	}
	for name, frag := range want {
		found := false
		for _, e := range errs {
			if strings.Contains(e.Error(), frag) && strings.HasPrefix(e.Error(), p+": ") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no error containing %q (and starting with the file name) in %v", name, frag, errs)
		}
	}
}

func TestLoadFileEdgeCases(t *testing.T) {
	dir := t.TempDir()
	if s, errs := LoadProjectFile(filepath.Join(dir, "missing.json")); len(s) != 0 || errs != nil {
		t.Fatalf("missing file: %v %v", s, errs)
	}
	p := writeFile(t, dir, "broken.json", `{"mcpServers": {`)
	if _, errs := LoadProjectFile(p); len(errs) != 1 || !strings.Contains(errs[0].Error(), p) {
		t.Fatalf("broken json: %v", errs)
	}
	p = writeFile(t, dir, "config.json", `{"model": "x", "mcpServers": {"a": {"url": "http://h/mcp"}}}`)
	s, errs := LoadConfigFile(p, ScopeUser)
	if len(errs) != 0 || s["a"].TransportType() != TypeHTTP || s["a"].Scope != ScopeUser {
		t.Fatalf("config file: %+v %v", s, errs)
	}
}

func TestMergeProjectOverUser(t *testing.T) {
	user := Servers{"a": {Command: "user-a"}, "b": {Command: "user-b"}}
	project := Servers{"b": {Command: "project-b"}, "c": {Command: "project-c"}}
	m := Merge(user, project)
	if m["a"].Command != "user-a" || m["b"].Command != "project-b" || m["c"].Command != "project-c" {
		t.Fatalf("merge: %+v", m)
	}
}

func TestExpand(t *testing.T) {
	t.Setenv("MCP_T_HOST", "example.org")
	t.Setenv("MCP_T_EMPTY", "")
	env := func(k string) (string, bool) { return os.LookupEnv(k) }
	c := ServerConfig{Command: "run", Args: []string{"--host=${MCP_T_HOST}", "${MCP_T_PORT:-8080}"},
		Env:     map[string]string{"TOKEN": "${MCP_T_EMPTY:-fallback}", "RAW": "$NOT_A_REF"},
		URL:     "",
		Headers: map[string]string{"X": "${MCP_T_HOST}"}}
	x, err := c.Expand("srv", env)
	if err != nil {
		t.Fatal(err)
	}
	if x.Args[0] != "--host=example.org" || x.Args[1] != "8080" || x.Env["TOKEN"] != "fallback" ||
		x.Env["RAW"] != "$NOT_A_REF" || x.Headers["X"] != "example.org" {
		t.Fatalf("expanded: %+v", x)
	}
	if c.Args[0] != "--host=${MCP_T_HOST}" {
		t.Fatal("Expand changed its receiver")
	}
	r := ServerConfig{Type: TypeHTTP, URL: "https://${MCP_T_MISSING_HOST}/mcp", File: "/p/.mcp.json"}
	_, err = r.Expand("remote", env)
	if err == nil || !strings.Contains(err.Error(), "/p/.mcp.json: mcpServers.remote.url: environment variable MCP_T_MISSING_HOST is not set") {
		t.Fatalf("missing var: %v", err)
	}
}

func TestToolName(t *testing.T) {
	cases := []struct{ server, tool, want string }{
		{"fs", "read_file", "mcp__fs__read_file"},
		{"my.server", "get thing/now", "mcp__my_server__get_thing_now"},
	}
	for _, c := range cases {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q,%q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long1 := ToolName("server", strings.Repeat("x", 80)+"1")
	long2 := ToolName("server", strings.Repeat("x", 80)+"2")
	if len(long1) != 64 || long1 == long2 {
		t.Fatalf("long names: %q %q", long1, long2)
	}
}

func TestClaudeCodeConfigJSON(t *testing.T) {
	t.Setenv("MCP_T_KEY", "k1")
	servers := Servers{
		"local":  {Command: "node", Args: []string{"s.js", "${MCP_T_KEY}"}, Env: map[string]string{"KEY": "${MCP_T_KEY}"}, Cwd: "/srv"},
		"remote": {Type: TypeHTTP, URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer ${MCP_T_KEY}"}},
		"sock":   {Type: TypeWS, URL: "ws://h/ws"},
		"off":    {Command: "x", Disabled: true},
		"broken": {Command: "${MCP_T_UNSET_VAR}"},
	}
	b, err := ClaudeCodeConfigJSON(servers)
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("want an error naming the unexpandable server, got %v", err)
	}
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.MCPServers) != 3 {
		t.Fatalf("servers: %s", b)
	}
	local := doc.MCPServers["local"]
	if local["command"] != "sh" || local["type"] != "stdio" || local["env"].(map[string]any)["KEY"] != "k1" {
		t.Fatalf("local: %v", local)
	}
	args := local["args"].([]any)
	if args[2] != "/srv" || args[3] != "node" || args[5] != "k1" {
		t.Fatalf("local args: %v", args)
	}
	if doc.MCPServers["remote"]["headers"].(map[string]any)["Authorization"] != "Bearer k1" {
		t.Fatalf("remote: %v", doc.MCPServers["remote"])
	}
	if doc.MCPServers["sock"]["type"] != "ws" {
		t.Fatalf("sock: %v", doc.MCPServers["sock"])
	}
	got := ClaudeCodeDisallowedTools(Servers{"a.b": {DisabledTools: []string{"rm"}}})
	if len(got) != 1 || got[0] != "mcp__a_b__rm" {
		t.Fatalf("disallowed: %v", got)
	}
}

func TestRunnable(t *testing.T) {
	s := Servers{
		"mine":   {Command: "a", Scope: ScopeUser},
		"off":    {Command: "a", Scope: ScopeUser, Disabled: true},
		"cloned": {Command: "a", Scope: ScopeProject},
		"ok":     {Command: "a", Scope: ScopeProject},
	}
	run, blocked := s.Runnable(Policy{EnabledProjectServers: []string{"ok"}})
	if strings.Join(run.Names(), ",") != "mine,ok" || strings.Join(blocked, ",") != "cloned" {
		t.Fatalf("run %v blocked %v", run.Names(), blocked)
	}
}
