package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// Under the claude-code runtime: a /command with arguments is expanded by
// tandem, a skill the CLI would not find itself (.agents/skills) reaches it
// through --add-dir and is invoked with Skill (its allowed-tools then
// pre-approved by tandem's engine), a config-defined agent
// reaches it through initialize and is offered only Read and Grep, the
// child's events are nested in stream-json and its messages are stored as
// a child session.
func TestFeatureSkillsAndAgentsClaudeCode(t *testing.T) {
	t.Parallel()
	none := ""
	cc := newClaudeCodeE2E(t, func(work string) scripted.Script {
		notes := filepath.Join(work, "notes.txt")
		return scripted.Script{
			SideModelPattern: &none,
			Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("sk1", "Skill", map[string]any{"skill": "notes-style"})),
				scripted.ToolStep(scripted.CallID("py1", "Bash", map[string]any{"command": "python3 -c \"open('styled.txt','w').write('ok')\""})),
				scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "read notes", "prompt": "TASK-ONE: read " + notes, "subagent_type": "reader"})),
				scripted.TextStep("Done."),
			},
			Threads: []scripted.Thread{{Match: "TASK-ONE", Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": notes})),
				scripted.TextStep("notes say hello"),
			}}},
		}
	})
	writeJSONFile(t, filepath.Join(cc.Home, "config.json"), map[string]any{
		"claude_code": map[string]any{"path": testdepBin(t, "claude"), "first_byte_timeout": "30s", "turn_timeout": "90s"},
		"agents":      map[string]any{"reader": map[string]any{"description": "Reads files and reports.", "prompt": "You read files.", "tools": []string{"Read", "Grep"}}},
	})
	cc.WriteFile("notes.txt", "hello\n")
	cc.WriteFile(".agents/skills/notes-style/SKILL.md", "---\nname: notes-style\ndescription: How notes are summarised here.\nallowed-tools: Bash(python3 *)\n---\nNOTES-STYLE-BODY: one line per note.\n")
	cc.WriteFile(".claude/commands/summarise.md", "---\ndescription: Summarise\nargument-hint: [what]\n---\nSummarise the $1 using the house style.\n")

	r := cc.RunDetached(streamArgs("/summarise notes", "--runtime", "claude-code", "--trust-project")...)
	mustSucceed(t, r)
	reqs := cc.srv.MainRequests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].RawBody), "Summarise the notes using the house style.") {
		t.Fatalf("the command was not expanded for the CLI")
	}
	if !strings.Contains(string(reqs[0].RawBody), "How notes are summarised here.") {
		t.Error("the .agents skill was not listed to the model")
	}
	var sawBody bool
	var child []scripted.Request
	for _, q := range reqs {
		body := string(q.RawBody)
		if strings.Contains(body, "NOTES-STYLE-BODY") {
			sawBody = true
		}
		if first := contentText(q.Messages()[0].(map[string]any)["content"]); strings.Contains(first, "TASK-ONE") {
			child = append(child, q)
		}
	}
	if !sawBody {
		t.Error("the skill body never reached the model")
	}
	if len(child) == 0 {
		t.Fatal("the config agent made no request")
	}
	if got := reqTools(child[0]); !slices.Contains(got, "Read") || slices.ContainsFunc(got, func(n string) bool { return n != "Read" && n != "Grep" }) {
		t.Errorf("the Read+Grep agent was offered %v", got)
	}
	var nested bool
	for _, e := range r.Events {
		if e.Type == event.ToolResult && e.ToolUseID == "r1" && e.ParentToolUseID == "a1" {
			nested = true
		}
	}
	if !nested {
		t.Errorf("the child's Read was not nested under a1")
	}
	if res := toolResults(r)["py1"]; res.IsError || cc.ReadFile("styled.txt") != "ok" {
		t.Errorf("the skill's allowed-tools were not pre-approved under claude-code: %+v", res)
	}
	kids := cc.childSessions(r.Result().SessionID)
	if len(kids) != 1 || kids[0].MessageCount < 3 || kids[0].Title != "reader: read notes" || kids[0].Usage.OutputTokens == 0 || kids[0].ParentToolUseID != "a1" {
		t.Errorf("child sessions: %+v", kids)
	}
}

// An explore-mode parent's sub-agent cannot write under claude-code
// either: the CLI's child calls go through tandem's engine.
func TestFeatureExploreChildCannotWriteClaudeCode(t *testing.T) {
	t.Parallel()
	none := ""
	cc := newClaudeCodeE2E(t, func(work string) scripted.Script {
		return scripted.Script{
			SideModelPattern: &none,
			Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "write", "prompt": "WRITE-TASK: create out.txt", "subagent_type": "general-purpose"})),
				scripted.TextStep("The agent could not write."),
			},
			Threads: []scripted.Thread{{Match: "WRITE-TASK", Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": filepath.Join(work, "out.txt"), "content": "x"})),
				scripted.TextStep("denied"),
			}}},
		}
	})
	r := cc.RunDetached(streamArgs("try to write", "--runtime", "claude-code", "--permission-mode", "explore")...)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if cc.ReadFile("out.txt") != "" {
		t.Fatal("an explore child wrote a file")
	}
	if res := toolResults(r)["w1"]; !res.IsError || res.ParentToolUseID != "a1" {
		t.Errorf("w1: %+v", res)
	}
}
