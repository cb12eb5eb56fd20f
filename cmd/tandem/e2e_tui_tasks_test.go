package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A background sub-agent in the terminal UI: the parent's turn ends at
// once, the agent finishes later while the user is typing (what they
// typed stays), /tasks lists it, and its report goes to the model with the
// user's next message.
func TestE2ETUIBackgroundAgent(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "gate")
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "wait for the gate", "prompt": "CHILD-GATE: wait", "run_in_background": true})),
			scripted.TextStep("PARENT-GOES-ON"),
			scripted.TextStep("PARENT-READ-THE-REPORT"),
		},
		Threads: []scripted.Thread{{Match: "CHILD-GATE", Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "while [ ! -e " + gate + " ]; do sleep 0.05; done; echo gate open"})),
			scripted.TextStep("CHILD-REPORT the gate opened"),
		}}},
	})
	p := x.startTUI(110, 34, "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "trust")
	p.waitText("Ask tandem")
	p.typeText("start the agent")
	p.keys("Enter")
	p.waitText("PARENT-GOES-ON")
	p.typeText("/tasks")
	p.keys("Enter")
	p.waitFor("agent_1 running in /tasks", func(s string) bool { return strings.Contains(s, "agent_1  agent  running") })

	// The user types; the agent finishes meanwhile.
	p.typeText("half typed")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p.waitText("agent_1 (wait for the gate) finished: CHILD-REPORT the gate opened")
	p.waitText("(the model reads it with")
	p.waitText("half typed") // the input kept what was typed
	p.typeText(" and sent")
	p.keys("Enter")
	p.waitText("PARENT-READ-THE-REPORT")

	var last string
	for _, r := range x.srv.MainRequests() {
		if strings.Contains(string(r.RawBody), "half typed and sent") {
			last = string(r.RawBody)
		}
	}
	if !strings.Contains(last, "CHILD-REPORT the gate opened") || !strings.Contains(last, "Background agent agent_1") {
		t.Errorf("the report did not reach the model with the next prompt:\n%.3000s", last)
	}
}
