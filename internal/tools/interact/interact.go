// Package interact holds the tools whose call is a question to the user:
// ExitPlanMode (approve a plan made in explore mode) and AskUserQuestion
// (multiple-choice questions), with Claude Code's names and inputs. Each
// declares itself tool.Interactive, so the permission engine puts the call
// to the user through the session's broker whatever the mode, and the
// user's answer is what the tool hands back to the model.
package interact

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/permit"
	"github.com/tandem-agent/tandem/internal/tool"
)

//go:embed exitplanmode.md
var exitPlanDescription string

//go:embed askuserquestion.md
var askDescription string

// ExitPlanMode presents the plan made in explore mode for approval.
type ExitPlanMode struct{}

// NewExitPlanMode returns the tool.
func NewExitPlanMode() *ExitPlanMode { return &ExitPlanMode{} }

func (*ExitPlanMode) Name() string        { return "ExitPlanMode" }
func (*ExitPlanMode) Description() string { return exitPlanDescription }
func (*ExitPlanMode) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string","description":"The plan to approve, in Markdown: steps, files to change, how the result is checked."}},"required":["plan"]}`)
}

// ReadOnly: presenting a plan changes nothing; the approval changes the
// mode, which the permission engine does.
func (*ExitPlanMode) ReadOnly() bool { return true }

// Interaction declares the call a plan approval (tool.Interactive).
func (*ExitPlanMode) Interaction() permit.Interaction { return permit.PlanApproval }
func (*ExitPlanMode) Kind() tool.Kind                 { return tool.KindThink }
func (*ExitPlanMode) Summary(json.RawMessage) string  { return "Present the plan for approval" }

// Execute runs only once the user approved the plan (a refusal never
// reaches it: the engine's denial carries the user's feedback).
func (*ExitPlanMode) Execute(_ context.Context, call tool.Call) (tool.Result, error) {
	if _, err := permit.ParsePlan(call.Input); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	return tool.Result{Content: "The user approved your plan: you are out of explore mode and can start working on it now. If it has several steps, start by writing them to the todo list."}, nil
}

// AskUserQuestion asks the user 1–4 multiple-choice questions.
type AskUserQuestion struct{}

// NewAskUserQuestion returns the tool.
func NewAskUserQuestion() *AskUserQuestion { return &AskUserQuestion{} }

func (*AskUserQuestion) Name() string        { return "AskUserQuestion" }
func (*AskUserQuestion) Description() string { return askDescription }
func (*AskUserQuestion) Schema() json.RawMessage {
	return json.RawMessage(askSchema)
}

// ReadOnly: a question changes nothing.
func (*AskUserQuestion) ReadOnly() bool { return true }

// Interaction declares the call a question to the user (tool.Interactive).
func (*AskUserQuestion) Interaction() permit.Interaction { return permit.UserQuestion }
func (*AskUserQuestion) Kind() tool.Kind                 { return tool.KindThink }
func (*AskUserQuestion) Summary(input json.RawMessage) string {
	q, err := permit.ParseQuestions(input)
	if err != nil {
		return "Ask the user"
	}
	return "Ask: " + q.Questions[0].Question
}

// Execute hands the user's answers (set in the input by the permission
// engine from the answer, or by an SDK host's canUseTool) to the model.
func (*AskUserQuestion) Execute(_ context.Context, call tool.Call) (tool.Result, error) {
	q, err := permit.ParseQuestions(call.Input)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if len(q.Answers) == 0 {
		return tool.Result{Content: "The user gave no answer. Decide yourself and say what you assumed."}, nil
	}
	return tool.Result{Content: FormatAnswers(q), Meta: map[string]any{"answers": q.Answers}}, nil
}

// FormatAnswers is the text the model reads: each question with its
// answer, in the questions' order (an answer to a question not asked is
// listed after them).
func FormatAnswers(q permit.Questions) string {
	var b strings.Builder
	b.WriteString("The user answered your questions:\n")
	asked := map[string]bool{}
	for _, aq := range q.Questions {
		asked[aq.Question] = true
		a, ok := q.Answers[aq.Question]
		if !ok {
			a = "(no answer)"
		}
		fmt.Fprintf(&b, "- %q: %s\n", aq.Question, a)
	}
	var extra []string
	for k := range q.Answers {
		if !asked[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		fmt.Fprintf(&b, "- %q: %s\n", k, q.Answers[k])
	}
	b.WriteString("Go on with these answers in mind.")
	return b.String()
}

const askSchema = `{
  "type": "object",
  "properties": {
    "questions": {
      "type": "array",
      "minItems": 1,
      "maxItems": 4,
      "description": "Questions to ask the user (1-4 questions)",
      "items": {
        "type": "object",
        "properties": {
          "question": {"type": "string", "description": "The complete question, ending with a question mark"},
          "header": {"type": "string", "description": "A very short label shown as a tag (max 12 chars)"},
          "options": {
            "type": "array",
            "minItems": 2,
            "maxItems": 4,
            "description": "2-4 distinct choices; do not add an 'Other' option, free text is always offered",
            "items": {
              "type": "object",
              "properties": {
                "label": {"type": "string", "description": "The choice as the user sees it (1-5 words)"},
                "description": {"type": "string", "description": "What this choice means or implies"}
              },
              "required": ["label", "description"]
            }
          },
          "multiSelect": {"type": "boolean", "description": "true when several options may be chosen together"}
        },
        "required": ["question", "header", "options", "multiSelect"]
      }
    }
  },
  "required": ["questions"]
}`
