package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// testdepBin is an npm program from testdeps (skips when not installed).
func testdepBin(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdeps", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed: run `cd testdeps && npm ci` to run this test", name)
	}
	return p
}

func echoScript() scripted.Script {
	return scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("echo1", "mcp__everything__echo", map[string]any{"message": "ping from the model"})),
		scripted.TextStep("The server answered."),
	}}
}

// mcpStatus returns the MCP status events of server name.
func mcpStatus(r runResult, name string) []event.Event {
	var out []event.Event
	for _, e := range r.Events {
		if e.Type == event.Status && e.Meta["mcp_server"] == name {
			out = append(out, e)
		}
	}
	return out
}

// checkEchoReachedModel asserts the echo call ran and its result was sent
// to the model in the next request.
func checkEchoReachedModel(t *testing.T, x *e2e, r runResult) {
	t.Helper()
	mustSucceed(t, r)
	res := toolResults(r)["echo1"]
	if res.IsError || res.Output != "Echo: ping from the model" {
		t.Fatalf("echo result: %+v\nstderr: %s", res, r.Stderr)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if !strings.Contains(string(reqs[0].RawBody), `"mcp__everything__echo"`) {
		t.Error("the first request did not offer mcp__everything__echo")
	}
	if !strings.Contains(string(reqs[1].RawBody), "Echo: ping from the model") {
		t.Error("the echo result did not reach the model")
	}
}

func TestFeatureMCPProjectServerNeedsApproval(t *testing.T) {
	t.Parallel()
	bin := testdepBin(t, "mcp-server-everything")
	mcpJSON := map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": bin}}}

	t.Run("normal mode without approval", func(t *testing.T) {
		x := newE2E(t, echoScript())
		writeJSONFile(t, filepath.Join(x.Work, ".mcp.json"), mcpJSON)
		r := x.RunDetached(streamArgs("echo")...)
		mustSucceed(t, r)
		st := mcpStatus(r, "everything")
		if len(st) == 0 || st[len(st)-1].Meta["mcp_status"] != "disabled" || st[len(st)-1].Meta["needs_approval"] != true ||
			!strings.Contains(st[len(st)-1].Message+st[len(st)-1].Error, "tandem mcp enable everything") {
			t.Errorf("status events: %+v", st)
		}
		for _, e := range st {
			if e.Meta["mcp_status"] == "connected" || e.Meta["mcp_status"] == "starting" {
				t.Errorf("an unapproved server started: %+v", e)
			}
		}
		if res := toolResults(r)["echo1"]; !res.IsError {
			t.Errorf("echo ran without approval: %+v", res)
		}
		if strings.Contains(string(x.srv.MainRequests()[0].RawBody), "mcp__everything__echo") {
			t.Error("an unapproved server's tool was offered")
		}
	})

	t.Run("trust mode", func(t *testing.T) {
		x := newE2E(t, echoScript())
		writeJSONFile(t, filepath.Join(x.Work, ".mcp.json"), mcpJSON)
		checkEchoReachedModel(t, x, x.RunDetached(streamArgs("echo", "--permission-mode", "trust")...))
	})

	t.Run("approved with tandem mcp enable", func(t *testing.T) {
		x := newE2E(t, echoScript())
		writeJSONFile(t, filepath.Join(x.Work, ".mcp.json"), mcpJSON)
		en := x.Run("mcp", "enable", "everything")
		if en.Code != 0 {
			t.Fatalf("mcp enable: %s%s", en.Stdout, en.Stderr)
		}
		// echo declares readOnlyHint, so normal mode runs it without asking.
		checkEchoReachedModel(t, x, x.RunDetached(streamArgs("echo")...))
	})
}

// Servers from the user's own config need no approval.
func TestFeatureMCPUserConfigServer(t *testing.T) {
	t.Parallel()
	bin := testdepBin(t, "mcp-server-everything")
	x := newE2E(t, echoScript())
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{
		"mcpServers": map[string]any{"everything": map[string]any{"command": bin}}})
	r := x.RunDetached(streamArgs("echo")...)
	checkEchoReachedModel(t, x, r)
	st := mcpStatus(r, "everything")
	if len(st) == 0 || st[len(st)-1].Meta["mcp_status"] != "connected" {
		t.Errorf("status events: %+v", st)
	}
}

// `tandem --home DIR mcp enable` approves in DIR, where `tandem --home DIR
// run` looks.
func TestFeatureMCPEnableHonoursHomeFlag(t *testing.T) {
	t.Parallel()
	bin := testdepBin(t, "mcp-server-everything")
	x := newE2E(t, echoScript())
	writeJSONFile(t, filepath.Join(x.Work, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"everything": map[string]any{"command": bin}}})
	home := filepath.Join(t.TempDir(), "other-home")
	if en := x.Run("--home", home, "mcp", "enable", "everything"); en.Code != 0 {
		t.Fatalf("mcp enable: %s%s", en.Stdout, en.Stderr)
	}
	if fileExists(filepath.Join(x.Home, "data", "mcp-approvals.json")) || !dirHas(t, home, "mcp-approvals.json") {
		t.Fatalf("the approval was not stored under --home %s", home)
	}
	checkEchoReachedModel(t, x, x.RunDetached(append([]string{"--home", home}, streamArgs("echo")...)...))
}

// dirHas reports whether a file named name exists anywhere under dir.
func dirHas(t *testing.T, dir, name string) bool {
	t.Helper()
	found := false
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == name {
			found = true
		}
		return nil
	})
	return found
}
