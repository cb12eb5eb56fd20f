package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestProjectServersNeedApproval(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	project := t.TempDir()
	p := writeFile(t, project, ".mcp.json", `{"mcpServers": {"ev": {"command": "`+bin+`"}}}`)
	servers, errs := LoadProjectFile(p)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	approvals := NewFileApprovals(t.TempDir())

	cases := []struct {
		name   string
		policy Policy
		runs   bool
	}{
		{"unapproved", Policy{Project: project, Approvals: approvals}, false},
		{"trust mode", Policy{Project: project, Trust: true}, true},
		{"enableAllProjectMcpServers", Policy{EnableAllProjectServers: true}, true},
		{"enabledMcpjsonServers", Policy{EnabledProjectServers: []string{"ev"}}, true},
		{"disabledMcpjsonServers wins", Policy{EnableAllProjectServers: true, DisabledProjectServers: []string{"ev"}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.policy.Allowed("ev", servers["ev"]); got != c.runs {
				t.Fatalf("Allowed = %v, want %v", got, c.runs)
			}
		})
	}
	if !(Policy{}).Allowed("mine", ServerConfig{Command: "x", Scope: ScopeUser}) {
		t.Fatal("the user's own servers need no approval")
	}

	h := startManager(t, servers, func(o *Options) { o.Policy = Policy{Project: project, Approvals: approvals} })
	st := h.m.Status()[0]
	if st.State != StateDisabled || !st.NeedsApproval || !strings.Contains(st.Error, "tandem mcp enable ev") {
		t.Fatalf("unapproved status: %+v", st)
	}
	if err := h.m.Enable("ev"); err == nil {
		t.Fatal("Enable must not bypass approval")
	}
	if err := h.m.Approve("ev"); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, "ev", StateConnected, 30*time.Second)
	// Remembered per project, in the data dir's file.
	if !approvals.Approved(project, "ev") || approvals.Approved(t.TempDir(), "ev") {
		t.Fatal("approval not remembered per project")
	}
	reopened := NewFileApprovals(filepath.Dir(approvals.path))
	if !reopened.Approved(project, "ev") {
		t.Fatal("approval not persisted")
	}
	if err := reopened.Revoke(project, "ev"); err != nil || reopened.Approved(project, "ev") {
		t.Fatalf("revoke: %v", err)
	}
}

func TestFailedServerIsReportedWithStderrAndOthersStart(t *testing.T) {
	exe, _ := os.Executable()
	sh := writeFile(t, t.TempDir(), "bad.sh", "#!/bin/sh\necho 'cannot open database: permission denied' >&2\nexit 7\n")
	_ = os.Chmod(sh, 0o755)
	h := startManager(t, Servers{
		"bad":     {Command: sh},
		"missing": {Command: "/definitely/not/here"},
		"good":    {Command: exe, Env: map[string]string{helperEnv: "crashy"}, DisabledTools: []string{"crash"}},
		"off":     {Command: exe, Disabled: true},
		"needvar": {Command: "${MCP_T_NEVER_SET_VAR}"},
	})
	h.m.WaitReady(context.Background(), 10*time.Second)
	bad := h.waitState(t, "bad", StateFailed, 5*time.Second)
	if !strings.Contains(bad.Error, "permission denied") || !strings.Contains(bad.Stderr, "cannot open database") {
		t.Fatalf("bad: %+v", bad)
	}
	missing := h.waitState(t, "missing", StateFailed, 5*time.Second)
	if !strings.Contains(missing.Error, "/definitely/not/here") {
		t.Fatalf("missing: %+v", missing)
	}
	needvar := h.waitState(t, "needvar", StateFailed, 5*time.Second)
	if !strings.Contains(needvar.Error, "mcpServers.needvar.command: environment variable MCP_T_NEVER_SET_VAR is not set") {
		t.Fatalf("needvar: %+v", needvar)
	}
	good := h.waitState(t, "good", StateConnected, 5*time.Second)
	if good.Tools != 1 || good.ToolNames[0] != "mcp__good__ping" {
		t.Fatalf("disabled_tools not applied: %+v", good)
	}
	if st := h.waitState(t, "off", StateDisabled, time.Second); st.Error != "disabled in config" {
		t.Fatalf("off: %+v", st)
	}
	var sawConnected, sawFailed bool
	for _, e := range h.log.All() {
		if e.Meta["mcp_server"] == "good" && e.Meta["mcp_status"] == "connected" && e.Message == "mcp server good connected (1 tools)" {
			sawConnected = true
		}
		if e.Meta["mcp_server"] == "bad" && e.Meta["mcp_status"] == "failed" && e.Meta["error"] != nil {
			sawFailed = true
		}
	}
	if !sawConnected || !sawFailed {
		t.Fatalf("status events missing: %q", messages(h.log))
	}
	// Calling a tool of a server that is not connected explains why.
	srv, _ := h.m.get("bad")
	res := srv.callTool(context.Background(), "x", nil, "")
	if !res.IsError || !strings.Contains(res.Content, "mcp server bad is not connected (state: failed)") {
		t.Fatalf("call on failed server: %+v", res)
	}
}

func TestEnabledToolsFilter(t *testing.T) {
	exe, _ := os.Executable()
	h := startManager(t, Servers{"c": {Command: exe, Env: map[string]string{helperEnv: "crashy"}, EnabledTools: []string{"crash"}}})
	st := h.waitState(t, "c", StateConnected, 10*time.Second)
	if strings.Join(st.ToolNames, ",") != "mcp__c__crash" {
		t.Fatalf("enabled_tools: %v", st.ToolNames)
	}
	if got := h.reg.Names(); strings.Join(got, ",") != "ListMcpResources,ReadMcpResource,mcp__c__crash" {
		t.Fatalf("registry: %v", got)
	}
}

// TestCloseKillsProcessGroup starts a server through a shell that leaves
// a grandchild behind; Close must take the grandchild down too.
func TestCloseKillsProcessGroup(t *testing.T) {
	exe, _ := os.Executable()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	script := writeFile(t, t.TempDir(), "wrap.sh", "#!/bin/sh\nsleep 300 &\necho $! > "+pidFile+"\nexec \""+exe+"\"\n")
	_ = os.Chmod(script, 0o755)
	h := startManager(t, Servers{"w": {Command: script, Env: map[string]string{helperEnv: "crashy"}}})
	h.waitState(t, "w", StateConnected, 10*time.Second)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if syscall.Kill(pid, 0) != nil {
		t.Fatal("grandchild not running")
	}
	start := time.Now()
	_ = h.m.Close()
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("Close took %s", d)
	}
	waitFor(t, func() bool { return syscall.Kill(pid, 0) != nil || isZombie(pid) }, "grandchild killed")
	if len(h.reg.Names()) != 0 {
		t.Fatalf("tools left after Close: %v", h.reg.Names())
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

func TestFilesystemServerReadsFile(t *testing.T) {
	bin := npmBin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	writeFile(t, dir, "notes.txt", "the answer is 42\n")
	// The session's folder is offered as the MCP root, which the
	// filesystem server uses in place of the folders in its args.
	h := startManager(t, Servers{"fs": {Command: bin, Args: []string{dir}}}, func(o *Options) { o.WorkDir = dir })
	h.waitState(t, "fs", StateConnected, 30*time.Second)
	name := "mcp__fs__read_text_file"
	if _, ok := h.reg.Get(name); !ok {
		name = "mcp__fs__read_file"
	}
	res := h.call(t, name, map[string]any{"path": filepath.Join(dir, "notes.txt")})
	if res.IsError || !strings.Contains(res.Content, "the answer is 42") {
		t.Fatalf("read: %+v", res)
	}
	out := h.call(t, name, map[string]any{"path": "/etc/passwd"})
	if !out.IsError || !strings.Contains(strings.ToLower(out.Content), "denied") {
		t.Fatalf("outside allowed dirs: %+v", out)
	}
}

func TestConvertResult(t *testing.T) {
	big := strings.Repeat("a", MaxResultChars+100)
	r := convertResult(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: big}}, IsError: true})
	if !r.IsError || r.Meta["truncated"] != true || !strings.Contains(r.Content, "[output truncated: showing 50000 of 50100 characters]") {
		t.Fatalf("truncation: %v %v", r.IsError, r.Meta)
	}
	r = convertResult(&sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}})
	if r.Content != `{"n":1}` {
		t.Fatalf("structured only: %q", r.Content)
	}
	r = convertResult(&sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b", MIMEType: "application/zip", Blob: []byte{1, 2}}}}})
	if !strings.Contains(r.Content, "2 bytes of binary data") {
		t.Fatalf("blob: %q", r.Content)
	}
	if r := convertResult(&sdk.CallToolResult{}); r.Content != "(no output)" {
		t.Fatalf("empty: %q", r.Content)
	}
}
