package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// reviewerScript has the model run the "reviewer" agent with the Agent
// tool; the child (its first message holds TASK-REVIEW) reads a file and
// reports.
func reviewerScript() scripted.Script {
	return scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("ag1", "Agent", map[string]any{"description": "review notes", "prompt": "TASK-REVIEW: review WORK/notes.txt", "subagent_type": "reviewer"})),
			scripted.TextStep("Reviewed."),
		},
		Threads: []scripted.Thread{{Match: "TASK-REVIEW", Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("rd1", "Read", map[string]any{"file_path": "WORK/notes.txt"})),
			scripted.TextStep("REVIEW-REPORT: the notes look fine"),
		}}},
	}
}

// checkReviewerRan asserts the child's requests carried the reviewer's
// prompt and only its tools, and its report reached the parent.
func checkReviewerRan(t *testing.T, x *e2e) {
	t.Helper()
	var child []scripted.Request
	var parentSaw bool
	for _, q := range x.srv.MainRequests() {
		if first := contentText(q.Messages()[0].(map[string]any)["content"]); strings.Contains(first, "TASK-REVIEW") {
			child = append(child, q)
		} else if strings.Contains(string(q.RawBody), "REVIEW-REPORT") {
			parentSaw = true
		}
	}
	if len(child) == 0 {
		t.Fatal("the reviewer agent made no request")
	}
	if !strings.Contains(string(child[0].RawBody), "REVIEWER-SYSTEM-PROMPT") {
		t.Errorf("the child's request lacks the agent's prompt:\n%.1500s", child[0].RawBody)
	}
	if got := reqTools(child[0]); !slices.Contains(got, "Read") || slices.ContainsFunc(got, func(n string) bool { return n != "Read" && n != "Grep" }) {
		t.Errorf("the Read+Grep reviewer was offered %v", got)
	}
	if !parentSaw {
		t.Error("the reviewer's report did not reach the parent's model")
	}
}

// The SDK's agents option defines a sub-agent the model runs with the
// Agent tool: its request carries the agent's prompt and only its tools,
// and system/init lists it; under claude and tandem alike.
func TestAgentSDKHostAgents(t *testing.T) {
	t.Parallel()
	for name, exe := range sdkExecutables(t) {
		t.Run(name, func(t *testing.T) {
			x := newE2E(t, scripted.Script{})
			x.serve(reviewerScript())
			x.WriteFile("notes.txt", "hello\n")
			// claude would start the agent in the background and end the
			// query before its report; tandem's sub-agents run in the
			// foreground.
			r := runAgentSDK(t, x, exe, "agents", "CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1")
			if res := r.result(); res == nil || res["subtype"] != "success" || res["result"] != "Reviewed." {
				t.Fatalf("result = %v\nstderr: %s", res, r.Stderr)
			}
			checkReviewerRan(t, x)
			init := r.first("system", "init")
			if agents, _ := init["agents"].([]any); !slices.Contains(agents, any("reviewer")) {
				t.Errorf("system/init agents = %v", init["agents"])
			}
		})
	}
}

// settingSources: [] reads none of the project's files (CLAUDE.md, a
// skill, a command): nothing of them reaches the model or init's lists;
// ['project'] reads them all. Under claude and tandem alike.
func TestAgentSDKSettingSourcesProjectFiles(t *testing.T) {
	t.Parallel()
	for name, exe := range sdkExecutables(t) {
		t.Run(name, func(t *testing.T) {
			x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "hi"}})
			x.WriteFile("CLAUDE.md", "PROJECT-INSTRUCTIONS-MARK\n")
			x.WriteFile(".claude/skills/house-style/SKILL.md", "---\nname: house-style\ndescription: HOUSE-STYLE-SKILL-DESC how we write.\n---\nWrite plainly.\n")
			x.WriteFile(".claude/commands/ship.md", "---\ndescription: Ship it\n---\nSHIP-COMMAND-BODY\n")
			x.WriteFile(".claude/agents/proj-helper.md", "---\nname: proj-helper\ndescription: PROJ-AGENT-DESC helps.\n---\nHelp.\n")
			for _, tc := range []struct {
				sources string
				want    bool
			}{{`[]`, false}, {`["project"]`, true}} {
				r := runAgentSDK(t, x, exe, "sources", "SETTING_SOURCES="+tc.sources)
				if res := r.result(); res == nil || res["subtype"] != "success" {
					t.Fatalf("%s: result = %v", tc.sources, res)
				}
				body := x.lastRequestBody()
				for _, mark := range []string{"PROJECT-INSTRUCTIONS-MARK", "HOUSE-STYLE-SKILL-DESC", "PROJ-AGENT-DESC"} {
					if strings.Contains(body, mark) != tc.want {
						t.Errorf("settingSources %s: %s in the model's request = %v, want %v", tc.sources, mark, !tc.want, tc.want)
					}
				}
				init := r.first("system", "init")
				for list, item := range map[string]string{"skills": "house-style", "slash_commands": "ship", "agents": "proj-helper"} {
					got, _ := init[list].([]any)
					if slices.Contains(got, any(item)) != tc.want {
						t.Errorf("settingSources %s: system/init %s = %v (want %s listed: %v)", tc.sources, list, got, item, tc.want)
					}
				}
				if cmds, _ := init["slash_commands"].([]any); tc.want && !slices.Contains(cmds, any("house-style")) {
					t.Errorf("settingSources %s: the skill is not listed as a command: %v", tc.sources, cmds)
				}
				if name != "tandem" {
					continue
				}
				// The command reaches the model as its text only when read
				// (claude answers an unknown /command itself, without a
				// model call, so this is asked of tandem alone).
				sources := strings.Trim(strings.ReplaceAll(tc.sources, `"`, ""), "[]")
				if r := x.Run("-p", "/ship", "--output-format", "stream-json", "--verbose", "--setting-sources", sources); r.Code != 0 {
					t.Fatalf("/ship: exit %d\n%s", r.Code, r.Stderr)
				}
				if got := strings.Contains(x.lastRequestBody(), "SHIP-COMMAND-BODY"); got != tc.want {
					t.Errorf("--setting-sources %q: /ship expanded = %v, want %v", sources, got, tc.want)
				}
			}
		})
	}
}

// --agents defines sub-agents on the command line, as claude takes them;
// a bad definition stops the run naming the agent, the field and the fix.
func TestDropInAgentsFlag(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	x.serve(reviewerScript())
	x.WriteFile("notes.txt", "hello\n")
	// A same-named project file loses to the host's definition.
	x.WriteFile(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: From the project.\n---\nPROJECT-REVIEWER-PROMPT\n")
	agents := `{"reviewer":{"description":"Reviews files.","prompt":"REVIEWER-SYSTEM-PROMPT: you review.","tools":["Read","Grep"]}}`
	r := x.Run("-p", "review the notes", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions",
		"--setting-sources", "project", "--agents", agents)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	checkReviewerRan(t, x)
	for _, q := range x.srv.MainRequests() {
		if strings.Contains(string(q.RawBody), "PROJECT-REVIEWER-PROMPT") {
			t.Error("the project's reviewer ran, not the host's")
		}
	}
	init := initLineOf(t, r.Stdout)
	if agents, _ := init["agents"].([]any); !slices.Contains(agents, any("reviewer")) || !slices.Contains(agents, any("general-purpose")) {
		t.Errorf("system/init agents = %v", init["agents"])
	}

	// The same JSON in a file.
	file := filepath.Join(t.TempDir(), "agents.json")
	if err := os.WriteFile(file, []byte(agents), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := x.Run("-p", "hi", "--output-format", "stream-json", "--verbose", "--agents", file); r.Code != 0 {
		t.Errorf("--agents FILE: exit %d\n%s", r.Code, r.Stderr)
	}

	for bad, want := range map[string][]string{
		`{"reviewer":{"description":"d","prompt":"p","tools":"Read"}}`:           {`agent "reviewer"`, `field "tools"`, "want a list of strings"},
		`{"reviewer":{"description":"d","prompt":"p","tools":["Bash(ls"]}}`:      {`agent "reviewer"`, `field "tools"`, "closing parenthesis"},
		`{"re viewer":{"description":"d","prompt":"p"}}`:                         {`agent "re viewer"`, "rename it"},
		`{"reviewer":{"description":"d","prompt":"p","model":"nosuch/model-x"}}`: {`agent "reviewer"`, `field "model"`, "use inherit, sonnet"},
		`{"reviewer":{"description":"d"}}`:                                       {`agent "reviewer"`, `field "prompt"`, "missing"},
	} {
		r := x.Run("-p", "hi", "--output-format", "stream-json", "--verbose", "--agents", bad)
		if r.Code != 1 {
			t.Errorf("--agents %s: exit %d, want 1", bad, r.Code)
		}
		for _, w := range append(want, "--agents") {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("--agents %s: stderr lacks %q:\n%s", bad, w, r.Stderr)
			}
		}
	}
}

// initialize's agents are validated where they enter: a bad one gets an
// error answer naming the agent, the field and the fix; good ones are
// listed in the answer.
func TestDropInInitializeAgents(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	p := startPeer(t, x, pythonSDKArgs...)
	p.send(map[string]any{"type": "control_request", "request_id": "bad", "request": map[string]any{"subtype": "initialize",
		"agents": map[string]any{"reviewer": map[string]any{"description": "d", "prompt": "p", "disallowedTools": "Write"}}}})
	r := p.next("initialize answer", isType("control_response", "bad"))["response"].(map[string]any)
	if msg, _ := r["error"].(string); r["subtype"] != "error" || !strings.Contains(msg, `agent "reviewer"`) || !strings.Contains(msg, `field "disallowedTools"`) ||
		!strings.Contains(msg, "want a list of strings") {
		t.Errorf("a bad agent's initialize answer: %v", r)
	}
	p.send(map[string]any{"type": "control_request", "request_id": "good", "request": map[string]any{"subtype": "initialize",
		"agents": map[string]any{"reviewer": map[string]any{"description": "Reviews.", "prompt": "p", "model": "haiku"}}}})
	r = p.next("initialize answer", isType("control_response", "good"))["response"].(map[string]any)
	if r["subtype"] != "success" {
		t.Fatalf("initialize: %v", r)
	}
	var listed bool
	for _, a := range r["response"].(map[string]any)["agents"].([]any) {
		if m := a.(map[string]any); m["name"] == "reviewer" && m["description"] == "Reviews." && m["model"] == "haiku" {
			listed = true
		}
	}
	if !listed {
		t.Errorf("initialize's agents = %v", r["response"].(map[string]any)["agents"])
	}
}

// --setting-sources without "user" reads none of the home folder's Claude
// Code files: no ~/.claude skills, agents, commands or CLAUDE.md; with
// "user" all of them.
func TestDropInSettingSourcesUserFiles(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	home := func(rel, content string) {
		p := filepath.Join(x.Home, ".claude", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home("skills/home-skill/SKILL.md", "---\nname: home-skill\ndescription: HOME-SKILL-DESC.\n---\nBody.\n")
	home("agents/home-agent.md", "---\nname: home-agent\ndescription: HOME-AGENT-DESC.\n---\nBody.\n")
	home("commands/home-cmd.md", "---\ndescription: Home command\n---\nBody.\n")
	home("CLAUDE.md", "HOME-INSTRUCTIONS-MARK\n")
	for _, tc := range []struct {
		sources string
		want    bool
	}{{"project", false}, {"user,project", true}} {
		r := x.Run("-p", "hi", "--output-format", "stream-json", "--verbose", "--setting-sources", tc.sources)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.sources, r.Code, r.Stderr)
		}
		body := x.lastRequestBody()
		for _, mark := range []string{"HOME-SKILL-DESC", "HOME-AGENT-DESC", "HOME-INSTRUCTIONS-MARK"} {
			if strings.Contains(body, mark) != tc.want {
				t.Errorf("--setting-sources %s: %s in the request = %v, want %v", tc.sources, mark, !tc.want, tc.want)
			}
		}
		init := initLineOf(t, r.Stdout)
		for list, item := range map[string]string{"skills": "home-skill", "agents": "home-agent", "slash_commands": "home-cmd"} {
			got, _ := init[list].([]any)
			if slices.Contains(got, any(item)) != tc.want {
				t.Errorf("--setting-sources %s: system/init %s = %v (want %s listed: %v)", tc.sources, list, got, item, tc.want)
			}
		}
	}
}

// initLineOf is the system/init line of a stream-json output.
func initLineOf(t *testing.T, stdout string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["type"] == "system" && m["subtype"] == "init" {
			return m
		}
	}
	t.Fatalf("no system/init line:\n%s", stdout)
	return nil
}

// Under the claude-code runtime the host's agents reach the Claude Code
// CLI (with tandem's config agents, in its initialize): the CLI's child
// request carries the agent's prompt and only its tools.
func TestDropInAgentsFlagClaudeCode(t *testing.T) {
	t.Parallel()
	none := ""
	cc := newClaudeCodeE2E(t, func(work string) scripted.Script {
		s := reviewerScript()
		s.SideModelPattern = &none
		s.Threads[0].Steps[0] = scripted.ToolStep(scripted.CallID("rd1", "Read", map[string]any{"file_path": filepath.Join(work, "notes.txt")}))
		return s
	})
	writeJSONFile(t, filepath.Join(cc.Home, "config.json"), map[string]any{"runtime": "claude-code",
		"claude_code": map[string]any{"path": testdepBin(t, "claude"), "first_byte_timeout": "30s", "turn_timeout": "90s"}})
	cc.WriteFile("notes.txt", "hello\n")
	agents := `{"reviewer":{"description":"Reviews files.","prompt":"REVIEWER-SYSTEM-PROMPT: you review.","tools":["Read","Grep"]}}`
	r := cc.RunDetached("-p", "review the notes", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions",
		"--setting-sources", "", "--agents", agents)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	checkReviewerRan(t, cc)
}

// A host's agent cannot widen the session's permission mode: its
// permissionMode bypassPermissions under a default-mode session still has
// its edit asked about (and, with nobody to ask, denied).
func TestDropInHostAgentCannotWidenMode(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	x.serve(scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("ag1", "Agent", map[string]any{"description": "write", "prompt": "TASK-WRITE: create out.txt", "subagent_type": "writer"})),
			scripted.TextStep("Done."),
		},
		Threads: []scripted.Thread{{Match: "TASK-WRITE", Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "WORK/out.txt", "content": "x\n"})),
			scripted.TextStep("tried"),
		}}},
	})
	agents := `{"writer":{"description":"Writes files.","prompt":"WRITER-SYSTEM-PROMPT","permissionMode":"bypassPermissions"}}`
	r := x.Run("-p", "write it", "--output-format", "stream-json", "--verbose", "--permission-mode", "default", "--agents", agents)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	var ran bool
	for _, q := range x.srv.MainRequests() {
		ran = ran || strings.Contains(string(q.RawBody), "WRITER-SYSTEM-PROMPT")
	}
	if !ran {
		t.Fatal("the writer agent did not run")
	}
	if x.ReadFile("out.txt") != "" {
		t.Error("the host's agent wrote without approval: its permissionMode widened the session's")
	}
}
