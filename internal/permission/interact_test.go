package permission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
)

const testQuestions = `{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"SQLite","description":"a file"},{"label":"PostgreSQL","description":"a server"}]}],"answers":{"Which database?":"the model's own"}}`

func TestPlanApprovalSwitchesTheMode(t *testing.T) {
	var events []event.Event
	var asked []Question
	answer := Answer{Decision: AllowOnce, Mode: AcceptEdits}
	e := NewEngine(EngineOptions{WorkDir: t.TempDir(), Mode: Explore, Emit: func(ev event.Event) { events = append(events, ev) },
		Asker: AskerFunc(func(_ context.Context, q Question) (Answer, error) { asked = append(asked, q); return answer, nil })})
	plan := Request{Tool: "ExitPlanMode", Input: json.RawMessage(`{"plan":"1. edit"}`), Interaction: PlanApproval}

	answer = Answer{Decision: DenyCall, Message: "split step 1"}
	d, err := e.Check(context.Background(), plan)
	if err != nil || d.Behavior != Deny || !strings.Contains(d.Message, "Their feedback: split step 1") || e.Mode() != Explore {
		t.Fatalf("keep planning: %+v %v, mode %s", d, err, e.Mode())
	}
	if len(asked) != 1 || asked[0].Kind != PlanApproval {
		t.Fatalf("asked %+v", asked)
	}
	if err := (Answer{Decision: AllowOnce, Mode: Explore}).Validate(asked[0]); err == nil {
		t.Error("approving into explore mode was accepted")
	}
	if err := (Answer{Decision: AllowAlways}).Validate(asked[0]); err == nil {
		t.Error("allow_always of a plan was accepted")
	}

	answer = Answer{Decision: AllowOnce, Mode: AcceptEdits}
	d, err = e.Check(context.Background(), plan)
	if err != nil || d.Behavior != Allow || e.Mode() != AcceptEdits {
		t.Fatalf("approve: %+v %v, mode %s", d, err, e.Mode())
	}
	if last := events[len(events)-1]; last.Type != event.ModeChanged || last.Mode != string(AcceptEdits) {
		t.Fatalf("no mode_changed: %+v", events)
	}
	// Out of explore mode there is no plan to approve: nobody is asked.
	if d, _ := e.Check(context.Background(), plan); d.Behavior != Deny || len(asked) != 2 {
		t.Fatalf("outside explore: %+v, asked %d", d, len(asked))
	}
	// A sub-agent's narrowed view never leaves the session's mode.
	e.SetMode(Explore)
	if d, _ := e.Narrowed(Explore).Check(context.Background(), plan); d.Behavior != Allow || e.Mode() != Explore {
		t.Fatalf("narrowed: %+v, mode %s", d, e.Mode())
	}
}

func TestUserQuestionAnswers(t *testing.T) {
	var answer Answer
	e := NewEngine(EngineOptions{WorkDir: t.TempDir(), Mode: DontAsk,
		Asker: AskerFunc(func(_ context.Context, q Question) (Answer, error) {
			if q.Kind != UserQuestion || strings.Contains(string(q.Input), "the model's own") || q.Summary != "Which database?" {
				t.Errorf("question %+v", q)
			}
			return answer, nil
		})})
	req := Request{Tool: "AskUserQuestion", Input: json.RawMessage(testQuestions), Interaction: UserQuestion}
	answer = Answer{Decision: AllowOnce, Answers: map[string]string{"Which database?": "PostgreSQL"}}
	d, err := e.Check(context.Background(), req)
	if err != nil || d.Behavior != Allow || !strings.Contains(string(d.UpdatedInput), `"answers":{"Which database?":"PostgreSQL"}`) {
		t.Fatalf("answered: %+v %v", d, err)
	}
	// An allow without answers runs without the model's own "answers".
	answer = Answer{Decision: AllowOnce, UpdatedInput: nil}
	if d, _ := e.Check(context.Background(), req); d.Behavior != Allow || strings.Contains(string(d.UpdatedInput), "answers") {
		t.Fatalf("allow without answers: %+v", d)
	}
	bad := Request{Tool: "AskUserQuestion", Input: json.RawMessage(`{"questions":[{"question":"Q?","header":"h","options":[{"label":"only"}]}]}`), Interaction: UserQuestion}
	if d, _ := e.Check(context.Background(), bad); d.Behavior != Deny || !strings.Contains(d.Message, "give 2 to 4") {
		t.Fatalf("one option: %+v", d)
	}
	headless := NewEngine(EngineOptions{WorkDir: t.TempDir()})
	if d, _ := headless.Check(context.Background(), req); d.Behavior != Deny || !strings.Contains(d.Message, "No one can answer") {
		t.Fatalf("headless: %+v", d)
	}
	denied := NewEngine(EngineOptions{WorkDir: t.TempDir(), UserRules: []Rule{{Permission: "AskUserQuestion", Action: ActionDeny}},
		Asker: AskerFunc(func(context.Context, Question) (Answer, error) {
			t.Error("asked despite a deny rule")
			return Answer{}, nil
		})})
	if d, _ := denied.Check(context.Background(), req); d.Behavior != Deny {
		t.Fatalf("deny rule: %+v", d)
	}
}
