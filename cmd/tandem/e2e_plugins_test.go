package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// writeGreeter writes the plugin "greeter" under dir: one of each part
// (a command, an agent, a skill, a hook, an MCP server, an output style).
func writeGreeter(t *testing.T, dir, mcpBin string) {
	t.Helper()
	writeAt(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "greeter", "version": "1.0.0", "description": "Greets people"}`)
	writeAt(t, filepath.Join(dir, "commands", "hello.md"), "---\ndescription: Says hello\n---\nHELLO-COMMAND-BODY for $ARGUMENTS\n")
	writeAt(t, filepath.Join(dir, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews notes\ntools: Read\n---\nPLUGIN-REVIEWER-PROMPT\n")
	writeAt(t, filepath.Join(dir, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets warmly.\n---\nPLUGIN-SKILL-BODY\n")
	writeAt(t, filepath.Join(dir, "hook-context.txt"), "PLUGIN-HOOK-CONTEXT\n")
	writeAt(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat \"${CLAUDE_PLUGIN_ROOT}/hook-context.txt\""}]}]}}`)
	writeAt(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"everything": {"command": "`+mcpBin+`"}}}`)
	writeAt(t, filepath.Join(dir, "output-styles", "pirate.md"), "---\nname: Pirate\ndescription: Talks like a pirate\n---\nPIRATE-STYLE-PROMPT\n")
}

// writeMarketplace writes a marketplace folder offering greeter and a
// broken plugin (its plugin.json is not JSON).
func writeMarketplace(t *testing.T, dir, mcpBin string) {
	t.Helper()
	writeAt(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"), `{"name": "local-mkt", "owner": {"name": "test"}, "plugins": [
		{"name": "greeter", "source": "./plugins/greeter", "description": "Greets people"},
		{"name": "broken", "source": "./plugins/broken"},
		{"name": "escape", "source": "../outside"}]}`)
	writeGreeter(t, filepath.Join(dir, "plugins", "greeter"), mcpBin)
	writeAt(t, filepath.Join(dir, "plugins", "broken", ".claude-plugin", "plugin.json"), "{not json")
}

// pluginScript uses each part: the prompt is /greeter:hello (the command,
// with the hook's context), then the model calls the skill, the agent and
// the MCP server's echo tool.
func pluginScript() scripted.Script {
	return scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("sk1", "Skill", map[string]any{"skill": "greeter:greet"})),
			scripted.ToolStep(scripted.CallID("ag1", "Agent", map[string]any{"description": "review", "prompt": "TASK-REVIEW: look", "subagent_type": "greeter:reviewer"})),
			scripted.ToolStep(scripted.CallID("mc1", "mcp__plugin_greeter_everything__echo", map[string]any{"message": "PING-FROM-MODEL"})),
			scripted.TextStep("all done"),
		},
		Threads: []scripted.Thread{{Match: "TASK-REVIEW", Steps: []scripted.Step{scripted.TextStep("REVIEW-REPORT")}}},
	}
}

// runPlugin runs one `tandem -p` turn of pluginScript on a fresh scripted
// server and returns the text of every request the model got.
func runPlugin(t *testing.T, x *e2e, args ...string) (*e2e, runResult, string) {
	t.Helper()
	x = withScript(t, x, pluginScript())
	r := x.Run(append([]string{"-p", "/greeter:hello Ana", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions"}, args...)...)
	var all strings.Builder
	for _, q := range x.srv.MainRequests() {
		all.Write(q.RawBody)
		all.WriteString("\n")
	}
	return x, r, all.String()
}

// checkPluginParts asserts each part of greeter reached the model.
func checkPluginParts(t *testing.T, x *e2e, r runResult, all string) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	first := string(reqs[0].RawBody)
	for _, want := range []string{"HELLO-COMMAND-BODY for Ana", "PLUGIN-HOOK-CONTEXT", `"mcp__plugin_greeter_everything__echo"`, "greeter:greet", "greeter:reviewer"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %q:\n%.3000s", want, first)
		}
	}
	for _, want := range []string{"PLUGIN-SKILL-BODY", "PLUGIN-REVIEWER-PROMPT", "REVIEW-REPORT", "PING-FROM-MODEL"} {
		if !strings.Contains(all, want) {
			t.Errorf("no request carried %q (a part of the plugin did not run)\nstderr: %s", want, r.Stderr)
		}
	}
}

// checkNoPlugin asserts a run saw nothing of greeter (the script still
// calls its tools by name; no tool of it is offered).
func checkNoPlugin(t *testing.T, x *e2e, r runResult, all string) {
	t.Helper()
	for _, gone := range []string{"HELLO-COMMAND-BODY", "PLUGIN-HOOK-CONTEXT", "PLUGIN-SKILL-BODY", "PLUGIN-REVIEWER-PROMPT"} {
		if strings.Contains(all, gone) {
			t.Errorf("greeter is not enabled, yet the model saw %q\nstderr: %s", gone, r.Stderr)
		}
	}
	for _, q := range x.srv.MainRequests() {
		if slices.Contains(reqTools(q), "mcp__plugin_greeter_everything__echo") {
			t.Errorf("greeter is not enabled, yet its MCP server's tool was offered")
			break
		}
	}
}

// A marketplace folder: add it, install greeter (told what it enables),
// use every part through `tandem -p`, disable, enable, uninstall. The
// broken plugin is refused with the reason, and one whose source leaves
// the marketplace is refused.
func TestPluginMarketplaceFolder(t *testing.T) {
	bin := testdepBin(t, "mcp-server-everything")
	x := newE2E(t, scripted.Script{})
	mkt := filepath.Join(t.TempDir(), "mkt")
	writeMarketplace(t, mkt, bin)

	if r := x.Run("plugin", "marketplace", "add", mkt); r.Code != 0 || !strings.Contains(r.Stdout, "local-mkt") {
		t.Fatalf("marketplace add: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	in := x.Run("plugin", "install", "greeter@local-mkt")
	if in.Code != 0 {
		t.Fatalf("install: %s", in.Stderr)
	}
	for _, want := range []string{"/greeter:hello", "greeter:greet", "UserPromptSubmit", "plugin_greeter_everything", "run commands", "greeter:reviewer"} {
		if !strings.Contains(in.Stdout, want) {
			t.Errorf("install did not say the plugin enables %q:\n%s", want, in.Stdout)
		}
	}
	if r := x.Run("plugin", "install", "broken@local-mkt"); r.Code == 0 || !strings.Contains(r.Stderr, "broken") || !strings.Contains(r.Stderr, "plugin.json") {
		t.Errorf("a broken plugin was installed or not explained: %d %s", r.Code, r.Stderr)
	}
	if r := x.Run("plugin", "install", "escape@local-mkt"); r.Code == 0 || !strings.Contains(r.Stderr, "leaves the marketplace") {
		t.Errorf("a source outside the marketplace was not refused: %d %s", r.Code, r.Stderr)
	}
	if r := x.Run("plugin", "install", "../x@local-mkt"); r.Code == 0 || !strings.Contains(r.Stderr, "not valid") {
		t.Errorf("a path as a plugin name was not refused: %d %s", r.Code, r.Stderr)
	}

	x2, r, all := runPlugin(t, x)
	checkPluginParts(t, x2, r, all)

	if d := x.Run("plugin", "disable", "greeter@local-mkt"); d.Code != 0 {
		t.Fatal(d.Stderr)
	}
	x2, r, all = runPlugin(t, x)
	checkNoPlugin(t, x2, r, all)
	if l := x.Run("plugin", "list"); !strings.Contains(l.Stdout, "greeter@local-mkt") || !strings.Contains(l.Stdout, "disabled") {
		t.Errorf("list: %s", l.Stdout)
	}

	if e := x.Run("plugin", "enable", "greeter@local-mkt"); e.Code != 0 {
		t.Fatal(e.Stderr)
	}
	if u := x.Run("plugin", "uninstall", "greeter@local-mkt"); u.Code != 0 {
		t.Fatal(u.Stderr)
	}
	if _, err := os.Stat(filepath.Join(x.Home, "plugins", "cache", "local-mkt", "greeter")); !os.IsNotExist(err) {
		t.Errorf("uninstall left the plugin's copy: %v", err)
	}
	x2, r, all = runPlugin(t, x)
	checkNoPlugin(t, x2, r, all)
}

// A marketplace in a local bare git repository is cloned with git into
// tandem's data folder; its plugin installs and runs; update pulls it.
func TestPluginMarketplaceGit(t *testing.T) {
	needProgram(t, "git")
	bin := testdepBin(t, "mcp-server-everything")
	x := newE2E(t, scripted.Script{})
	src := filepath.Join(t.TempDir(), "src")
	writeMarketplace(t, src, bin)
	bare := filepath.Join(t.TempDir(), "mkt.git")
	gitRun := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "HOME="+x.Home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun(src, "init", "-q")
	gitRun(src, "add", ".")
	gitRun(src, "commit", "-q", "-m", "marketplace")
	gitRun(src, "clone", "-q", "--bare", src, bare)

	if r := x.Run("plugin", "marketplace", "add", bare); r.Code != 0 {
		t.Fatalf("marketplace add (git): %s", r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(x.Home, "plugins", "marketplaces", "local-mkt", ".claude-plugin", "marketplace.json")); err != nil {
		t.Fatalf("the marketplace was not cloned into the data folder: %v", err)
	}
	if r := x.Run("plugin", "install", "greeter@local-mkt"); r.Code != 0 {
		t.Fatalf("install: %s", r.Stderr)
	}
	x2, r, all := runPlugin(t, x)
	checkPluginParts(t, x2, r, all)

	// A change pushed to the repository arrives with update.
	writeAt(t, filepath.Join(src, "plugins", "greeter", "commands", "hello.md"), "HELLO-V2 for $ARGUMENTS\n")
	gitRun(src, "commit", "-q", "-am", "v2")
	gitRun(src, "push", "-q", bare, "HEAD")
	if u := x.Run("plugin", "update", "greeter@local-mkt"); u.Code != 0 {
		t.Fatalf("update: %s", u.Stderr)
	}
	_, _, all = runPlugin(t, x)
	if !strings.Contains(all, "HELLO-V2 for Ana") {
		t.Error("update did not bring the repository's new command text")
	}
}

// --plugin-dir loads a plugin for one run (on the Claude Code CLI path
// and under tandem run); a broken one given beside it is reported and the
// good one still loads; the next run without the flag has neither.
func TestPluginDirOneRun(t *testing.T) {
	bin := testdepBin(t, "mcp-server-everything")
	x := newE2E(t, scripted.Script{})
	dir := filepath.Join(t.TempDir(), "greeter")
	writeGreeter(t, dir, bin)
	broken := filepath.Join(t.TempDir(), "broken")
	writeAt(t, filepath.Join(broken, ".claude-plugin", "plugin.json"), `{"name": "../../evil"}`)

	x2, r, all := runPlugin(t, x, "--plugin-dir", broken, "--plugin-dir", dir)
	checkPluginParts(t, x2, r, all)
	if !strings.Contains(r.Stderr, broken) || !strings.Contains(r.Stderr, "not valid") {
		t.Errorf("the broken plugin was not reported:\n%s", r.Stderr)
	}

	x2, r, all = runPlugin(t, x)
	checkNoPlugin(t, x2, r, all)

	x3 := withScript(t, x, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	rr := x3.Run(streamArgs("/greeter:hello Bo", "--plugin-dir", dir)...)
	mustSucceed(t, rr)
	if reqs := x3.srv.MainRequests(); len(reqs) == 0 || !strings.Contains(string(reqs[0].RawBody), "HELLO-COMMAND-BODY for Bo") {
		t.Error("tandem run --plugin-dir did not load the plugin's command")
	}
}

// The plugins a user installed for Claude Code are offered by list and
// used after `tandem plugin import`, enabled as Claude Code has them.
func TestPluginImportFromClaudeCode(t *testing.T) {
	bin := testdepBin(t, "mcp-server-everything")
	x := newE2E(t, scripted.Script{})
	cache := filepath.Join(x.Home, ".claude", "plugins", "cache", "cc-mkt", "greeter", "1.0.0")
	writeGreeter(t, cache, bin)
	writeJSONFile(t, filepath.Join(x.Home, ".claude", "plugins", "installed_plugins.json"), map[string]any{
		"version": 2, "plugins": map[string]any{"greeter@cc-mkt": []any{map[string]any{"scope": "user", "installPath": cache, "version": "1.0.0"}}}})
	writeJSONFile(t, filepath.Join(x.Home, ".claude", "plugins", "known_marketplaces.json"), map[string]any{
		"cc-mkt": map[string]any{"source": map[string]any{"source": "github", "repo": "o/r"}, "installLocation": filepath.Join(x.Home, ".claude", "plugins", "marketplaces", "cc-mkt")}})
	writeJSONFile(t, filepath.Join(x.Home, ".claude", "settings.json"), map[string]any{"enabledPlugins": map[string]any{"greeter@cc-mkt": true}})

	x1, r, all := runPlugin(t, x)
	checkNoPlugin(t, x1, r, all)
	if l := x.Run("plugin", "list"); !strings.Contains(l.Stdout, "tandem plugin import") {
		t.Errorf("list did not offer Claude Code's plugins for import:\n%s", l.Stdout)
	}
	if im := x.Run("plugin", "import"); im.Code != 0 || !strings.Contains(im.Stdout, "greeter@cc-mkt") {
		t.Fatalf("import: %s %s", im.Stdout, im.Stderr)
	}
	x2, r, all := runPlugin(t, x)
	checkPluginParts(t, x2, r, all)
	if l := x.Run("plugin", "list"); strings.Contains(l.Stdout, "tandem plugin import") || !strings.Contains(l.Stdout, "greeter@cc-mkt") {
		t.Errorf("list after import: %s", l.Stdout)
	}
}
