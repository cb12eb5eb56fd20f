package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// A thinking block goes back to Anthropic with its signature unchanged, in
// the same turn and after a resume.
func TestE2ERunThinkingSignatureRoundTrip(t *testing.T) {
	t.Parallel()
	const thought = "The user wants the files listed; Glob is the right tool."
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Glob", map[string]any{"pattern": "*"})).WithThinking(thought),
		scripted.TextStep("Listed."),
		scripted.TextStep("Again."),
	}})
	r := x.RunStream("list")
	mustSucceed(t, r)
	if len(eventsOf(r, event.Thinking)) == 0 {
		t.Errorf("no thinking events streamed")
	}
	check := func(label string) {
		t.Helper()
		req := x.lastMain()
		var found bool
		for _, m := range req.Messages() {
			role, blocks := anthropicBlocks(m)
			for _, b := range blocks {
				if role == "assistant" && b["type"] == "thinking" {
					found = true
					if b["thinking"] != thought || b["signature"] != scripted.Signature(thought) {
						t.Errorf("%s: thinking block %v", label, b)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: request carries no thinking block:\n%s", label, req.RawBody)
		}
	}
	check("same turn")
	mustSucceed(t, x.RunStream("more", "--resume", r.Result().SessionID))
	check("resumed")
}

// AGENTS.md in the folder, CLAUDE.md at the repository root above it and
// --append-system-prompt all reach the system prompt.
func TestE2ERunProjectInstructions(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	root := filepath.Dir(x.Work)
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte("Parent rule: marker-claude-parent."), 0o644); err != nil {
		t.Fatal(err)
	}
	x.WriteFile("AGENTS.md", "Workspace rule: marker-agents-work.")
	mustSucceed(t, x.RunStream("hi", "--append-system-prompt", "marker-appended-text"))
	sys := reqSystem(x.lastMain())
	want := []string{"marker-claude-parent", "marker-agents-work", "marker-appended-text", "Git: repository"}
	for _, w := range want {
		if !strings.Contains(sys, w) {
			t.Errorf("system prompt lacks %q:\n%s", w, sys)
		}
	}
	// The nearer file comes later so it wins on conflicts.
	if strings.Index(sys, "marker-claude-parent") > strings.Index(sys, "marker-agents-work") {
		t.Errorf("parent instructions come after the folder's")
	}
	// User messages must not carry them.
	if strings.Contains(string(x.lastMain().RawBody), `"text":"Parent rule`) {
		t.Errorf("instructions sent as a message")
	}

	// --system-prompt replaces tandem's prompt but keeps the appended text.
	mustSucceed(t, x.RunStream("hi", "--system-prompt", "marker-replaced", "--append-system-prompt", "marker-appended-2"))
	sys = reqSystem(x.lastMain())
	if !strings.Contains(sys, "marker-replaced") || !strings.Contains(sys, "marker-appended-2") || strings.Contains(sys, "marker-agents-work") {
		t.Errorf("--system-prompt: system is\n%s", sys)
	}
}

// The same tool call over and over is refused after the third time.
func TestE2ERunDoomLoop(t *testing.T) {
	t.Parallel()
	var steps []scripted.Step
	for i := 0; i < 5; i++ {
		steps = append(steps, scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "echo ran >> count.txt"})))
	}
	steps = append(steps, scripted.TextStep("I give up."))
	x := newE2E(t, scripted.Script{Steps: steps})
	r := x.RunStream("loop", "--permission-mode", "trust")
	mustSucceed(t, r)
	if got := strings.Count(x.ReadFile("count.txt"), "ran"); got != 3 {
		t.Errorf("the command ran %d times, want 3", got)
	}
	var doom int
	for _, e := range eventsOf(r, event.Error) {
		if strings.Contains(e.Error, "doom loop") {
			doom++
		}
	}
	if doom == 0 {
		t.Errorf("no doom-loop error event:\n%s", r.Stdout)
	}
	results := eventsOf(r, event.ToolResult)
	if len(results) != 5 || !results[3].IsError || !results[4].IsError || results[2].IsError {
		t.Errorf("tool results: %+v", results)
	}
}

// --disallowedTools Bash removes Bash from the offered tools and refuses a
// call to it anyway.
func TestE2ERunDisallowedTools(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "echo should-not-run > ran.txt"})),
		scripted.TextStep("ok"),
	}})
	r := x.RunStream("try bash", "--disallowedTools", "Bash", "--permission-mode", "trust")
	mustSucceed(t, r)
	tools := reqTools(x.srv.MainRequests()[0])
	if slices.Contains(tools, "Bash") || !slices.Contains(tools, "Read") {
		t.Errorf("offered tools %v", tools)
	}
	res := eventsOf(r, event.ToolResult)
	if len(res) != 1 || !res[0].IsError {
		t.Errorf("Bash call result %+v", res)
	}
	if x.ReadFile("ran.txt") != "" {
		t.Errorf("a disallowed Bash call ran")
	}
}

// --allowedTools approves the tools it names (Claude Code's meaning: it is
// not a filter of the tools offered). Without a terminal, a Bash call in the
// normal mode would be denied; with --allowedTools Bash it runs.
func TestE2ERunAllowedTools(t *testing.T) {
	t.Parallel()
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "echo approved > ran.txt"})),
		scripted.TextStep("ok"),
	}}
	x := newE2E(t, script)
	r := x.RunStream("run it", "--allowedTools", "Read,Glob")
	mustSucceed(t, r)
	tools := reqTools(x.srv.MainRequests()[0])
	for _, want := range []string{"Read", "Glob"} {
		if !slices.Contains(tools, want) {
			t.Errorf("offered tools %v lack %s", tools, want)
		}
	}
	if res := eventsOf(r, event.ToolResult); len(res) != 1 || !res[0].IsError || x.ReadFile("ran.txt") != "" {
		t.Errorf("Bash ran without approval: %+v", res)
	}

	y := newE2E(t, script)
	r = y.RunStream("run it", "--allowedTools", "Read,Glob,Bash")
	mustSucceed(t, r)
	if res := eventsOf(r, event.ToolResult); len(res) != 1 || res[0].IsError || y.ReadFile("ran.txt") != "approved\n" {
		t.Errorf("--allowedTools Bash did not approve the call: %+v", res)
	}
}
