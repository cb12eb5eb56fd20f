package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

var (
	storageQuestion = map[string]any{"questions": []any{map[string]any{
		"question": "Which database should sessions use?", "header": "Database", "multiSelect": false,
		"options": []any{map[string]any{"label": "SQLite", "description": "one file"}, map[string]any{"label": "PostgreSQL", "description": "a server"}}}}}
	firstPlan  = map[string]any{"plan": "1. Add a PostgreSQL store.\n2. Switch to it."}
	secondPlan = map[string]any{"plan": "1. Add a PostgreSQL store.\n2. Migrate the data.\n3. Switch to it."}
)

// planSteps: a question, a plan sent back, a revised plan approved, then
// a write that acceptEdits runs unasked.
func planSteps() []scripted.Step {
	return []scripted.Step{
		scripted.ToolStep(scripted.CallID("ask1", "AskUserQuestion", storageQuestion)),
		scripted.ToolStep(scripted.CallID("plan1", "ExitPlanMode", firstPlan)),
		scripted.ToolStep(scripted.CallID("plan2", "ExitPlanMode", secondPlan)),
		scripted.ToolStep(scripted.CallID("write1", "Write", map[string]any{"file_path": "WORK/PLAN.md", "content": "migrate\n"})),
		scripted.TextStep("Planned and started."),
	}
}

// Through the official Agent SDK: AskUserQuestion and ExitPlanMode reach
// canUseTool with their inputs, the answers the host puts in updatedInput
// reach the model, a denied plan's feedback reaches the model and plan
// mode stays, and an approval with setMode acceptEdits lets the Write run
// without asking.
func TestAgentSDKPlanApprovalAndQuestions(t *testing.T) {
	x := newE2E(t, scripted.Script{})
	x.serve(scripted.Script{Steps: planSteps()})
	r := runAgentSDK(t, x, tandemBin, "plan")
	if res := r.result(); res == nil || res["subtype"] != "success" || res["result"] != "Planned and started." {
		t.Fatalf("result = %v\nstderr: %s", res, r.Stderr)
	}
	var asked []string
	for _, c := range r.CanUseTool {
		asked = append(asked, c.ToolName)
	}
	if strings.Join(asked, ",") != "AskUserQuestion,ExitPlanMode,ExitPlanMode" {
		t.Fatalf("canUseTool asked for %v, want the question and both plans (and not the Write)", asked)
	}
	if qs, _ := r.CanUseTool[0].Input["questions"].([]any); len(qs) != 1 {
		t.Errorf("AskUserQuestion input = %v", r.CanUseTool[0].Input)
	}
	if r.CanUseTool[1].Input["plan"] != firstPlan["plan"] {
		t.Errorf("ExitPlanMode input = %v", r.CanUseTool[1].Input)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if body := string(reqs[1].RawBody); !strings.Contains(body, `\"Which database should sessions use?\": PostgreSQL`) {
		t.Errorf("the answer did not reach the model:\n%.3000s", body)
	}
	if body := string(reqs[2].RawBody); !strings.Contains(body, "add a migration step") || !strings.Contains(body, "keep planning") {
		t.Errorf("the plan's feedback did not reach the model:\n%.3000s", body)
	}
	if body := string(reqs[3].RawBody); !strings.Contains(body, "approved your plan") {
		t.Errorf("the approval did not reach the model:\n%.3000s", body)
	}
	if got := x.ReadFile("PLAN.md"); got != "migrate\n" {
		t.Errorf("PLAN.md = %q: the Write after approval did not run", got)
	}
}

// Over ACP, with the official client library: the model's question is a
// permission request whose options are its choices, the plan one with
// "accept edits", "ask before edits" and "keep planning"; keeping planning
// sends the plan back, approving with accept edits leaves explore mode so
// the Write runs unasked.
func TestACPPlanApprovalAndQuestions(t *testing.T) {
	x := newE2E(t, scripted.Script{})
	steps := planSteps()
	steps[3] = scripted.ToolStep(scripted.CallID("write1", "Write", map[string]any{"file_path": "PLAN.md", "content": "migrate\n"}))
	x.serve(scripted.Script{Steps: steps})
	l := runACPClient(t, x, "SCENARIO=plan")
	if r := l.response(t, "plan"); r["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v", r)
	}
	if len(l.Asks) != 3 {
		t.Fatalf("asks = %+v, want the question and two plans", l.Asks)
	}
	if q := l.Asks[0]; q.Title != "Which database should sessions use?" || strings.Join(q.Options, ",") != "option_0,option_1,reject" {
		t.Errorf("question ask = %+v", q)
	}
	if p := l.Asks[1]; strings.Join(p.Options, ",") != "plan_accept_edits,plan_normal,reject" || !strings.Contains(p.Content, "Add a PostgreSQL store") {
		t.Errorf("plan ask = %+v", p)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if body := string(reqs[1].RawBody); !strings.Contains(body, `\"Which database should sessions use?\": PostgreSQL`) {
		t.Errorf("the answer did not reach the model:\n%.3000s", body)
	}
	if body := string(reqs[2].RawBody); !strings.Contains(body, "keep planning") {
		t.Errorf("the plan was not sent back:\n%.3000s", body)
	}
	if got := x.ReadFile("PLAN.md"); got != "migrate\n" {
		t.Errorf("PLAN.md = %q: the Write after approval did not run", got)
	}
}

// In the terminal UI (a real tmux pane): the model's question answered by
// number, the plan sent back with typed feedback, the revised plan
// approved with "accept edits", after which the Write runs unasked.
func TestE2ETUIPlanApprovalAndQuestions(t *testing.T) {
	x := newE2E(t, scripted.Script{})
	steps := planSteps()
	steps[3] = scripted.ToolStep(scripted.CallID("write1", "Write", map[string]any{"file_path": "PLAN.md", "content": "migrate\n"}))
	x.serve(scripted.Script{Steps: steps})
	p := x.startTUI(110, 40, "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "explore")
	p.waitText("Ask tandem")
	p.typeText("plan the storage change")
	p.keys("Enter")
	p.waitText("Question · 1 of 1")
	p.waitText("[3] Other")
	time.Sleep(time.Second) // the dialog takes keys 400 ms after it shows (dialogArmDelay)
	p.keys("2")
	p.waitText("approve it to start working")
	p.waitText("no, keep planning")
	time.Sleep(time.Second)
	p.keys("3")
	p.typeText("add a migration step")
	p.keys("Enter")
	p.waitText("Migrate the data")
	time.Sleep(time.Second)
	p.keys("1")
	p.waitText("Planned and started.")
	reqs := x.srv.MainRequests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if body := string(reqs[1].RawBody); !strings.Contains(body, `\"Which database should sessions use?\": PostgreSQL`) {
		t.Errorf("the answer did not reach the model:\n%.3000s", body)
	}
	if body := string(reqs[2].RawBody); !strings.Contains(body, "add a migration step") {
		t.Errorf("the feedback did not reach the model:\n%.3000s", body)
	}
	if got := x.ReadFile("PLAN.md"); got != "migrate\n" {
		t.Errorf("PLAN.md = %q: the Write after approval did not run", got)
	}
}
