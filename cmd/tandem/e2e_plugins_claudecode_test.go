package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// Under the claude-code runtime the user's enabled plugins reach the
// Claude Code CLI (--plugin-dir): greeter's command, skill, agent, hook and
// MCP server all work, each once (its hook run by tandem only, its server
// started by tandem only), and a disabled plugin brings nothing.
func TestPluginsReachClaudeCode(t *testing.T) {
	t.Parallel()
	bin := testdepBin(t, "mcp-server-everything")
	cc := newClaudeCodeE2E(t, func(string) scripted.Script { return scripted.Script{} })
	mkt := filepath.Join(t.TempDir(), "mkt")
	writeAt(t, filepath.Join(mkt, ".claude-plugin", "marketplace.json"), `{"name": "local-mkt", "owner": {"name": "test"}, "plugins": [
		{"name": "greeter", "source": "./plugins/greeter"}, {"name": "quiet", "source": "./plugins/quiet"}]}`)
	writeGreeter(t, filepath.Join(mkt, "plugins", "greeter"), bin)
	quiet := filepath.Join(mkt, "plugins", "quiet")
	writeAt(t, filepath.Join(quiet, ".claude-plugin", "plugin.json"), `{"name": "quiet", "version": "1.0.0"}`)
	writeAt(t, filepath.Join(quiet, "skills", "hush", "SKILL.md"), "---\nname: hush\ndescription: QUIET-SKILL-DESCRIPTION.\n---\nQUIET-SKILL-BODY\n")
	writeAt(t, filepath.Join(quiet, "agents", "mute.md"), "---\nname: mute\ndescription: QUIET-AGENT-DESCRIPTION\n---\nQUIET-AGENT-PROMPT\n")
	for _, args := range [][]string{
		{"plugin", "marketplace", "add", mkt}, {"plugin", "install", "greeter@local-mkt"},
		{"plugin", "install", "quiet@local-mkt"}, {"plugin", "disable", "quiet@local-mkt"},
	} {
		if r := cc.Run(args...); r.Code != 0 {
			t.Fatalf("%v: %s", args, r.Stderr)
		}
	}

	x := withScript(t, cc, pluginScript())
	r := x.RunDetached(streamArgs("/greeter:hello Ana", "--runtime", "claude-code", "--permission-mode", "bypassPermissions")...)
	var all strings.Builder
	for _, q := range x.srv.MainRequests() {
		all.Write(q.RawBody)
		all.WriteString("\n")
	}
	checkPluginParts(t, x, r, all.String())
	reqs := x.srv.MainRequests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	first := string(reqs[0].RawBody)
	if n := strings.Count(first, "PLUGIN-HOOK-CONTEXT"); n != 1 {
		t.Errorf("the plugin's hook context reached the model %d times, want once (tandem runs plugin hooks; the CLI must not)", n)
	}
	tools := reqTools(reqs[0])
	if n := len(slices.DeleteFunc(slices.Clone(tools), func(s string) bool { return s != "mcp__plugin_greeter_everything__echo" })); n != 1 {
		t.Errorf("the plugin's MCP tool is offered %d times, want once: %v", n, tools)
	}
	for _, gone := range []string{"QUIET-SKILL-DESCRIPTION", "QUIET-AGENT-DESCRIPTION", "quiet:hush"} {
		if strings.Contains(all.String(), gone) {
			t.Errorf("the disabled plugin quiet reached the CLI: the model saw %q", gone)
		}
	}
}
