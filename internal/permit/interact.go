package permit

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The inputs of the interactive tools (Request.Interaction), in Claude
// Code's shapes, decoded here once for the engine that checks them and the
// front ends that render them.

// Plan is ExitPlanMode's input: the plan the user approves.
type Plan struct {
	Plan string `json:"plan"`
}

// ParsePlan decodes and checks ExitPlanMode's input.
func ParsePlan(raw json.RawMessage) (Plan, error) {
	var p Plan
	if err := json.Unmarshal(raw, &p); err != nil {
		return Plan{}, fmt.Errorf("ExitPlanMode input is not a JSON object with a plan: %w", err)
	}
	if strings.TrimSpace(p.Plan) == "" {
		return Plan{}, fmt.Errorf("ExitPlanMode needs the plan: pass it as \"plan\" (Markdown)")
	}
	return p, nil
}

// Questions is AskUserQuestion's input: 1–4 questions; Answers (question
// text to the chosen labels, comma separated, or the text typed instead)
// is filled in by the user's answer, never by the model.
type Questions struct {
	Questions []AskedQuestion   `json:"questions"`
	Answers   map[string]string `json:"answers,omitempty"`
}

// AskedQuestion is one multiple-choice question; "Other" (free text) is
// always offered besides its options.
type AskedQuestion struct {
	Question    string   `json:"question"`
	Header      string   `json:"header"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Preview     string `json:"preview,omitempty"`
}

// Limits of AskUserQuestion, as Claude Code has them.
const (
	MaxQuestions = 4
	MinOptions   = 2
	MaxOptions   = 4
)

// ParseQuestions decodes and checks AskUserQuestion's input, naming what
// to fix.
func ParseQuestions(raw json.RawMessage) (Questions, error) {
	var q Questions
	if err := json.Unmarshal(raw, &q); err != nil {
		return Questions{}, fmt.Errorf("AskUserQuestion input is not a JSON object with questions: %w", err)
	}
	if n := len(q.Questions); n < 1 || n > MaxQuestions {
		return Questions{}, fmt.Errorf("AskUserQuestion takes 1 to %d questions, got %d", MaxQuestions, n)
	}
	seen := map[string]bool{}
	for i, aq := range q.Questions {
		if strings.TrimSpace(aq.Question) == "" {
			return Questions{}, fmt.Errorf("AskUserQuestion question %d has no text: set \"question\"", i+1)
		}
		if seen[aq.Question] {
			return Questions{}, fmt.Errorf("AskUserQuestion asks %q twice: answers are keyed by the question's text, so each must differ", aq.Question)
		}
		seen[aq.Question] = true
		if n := len(aq.Options); n < MinOptions || n > MaxOptions {
			return Questions{}, fmt.Errorf("AskUserQuestion question %q has %d options: give %d to %d (\"Other\" is added for free text)", aq.Question, n, MinOptions, MaxOptions)
		}
		for _, o := range aq.Options {
			if strings.TrimSpace(o.Label) == "" {
				return Questions{}, fmt.Errorf("AskUserQuestion question %q has an option without a label", aq.Question)
			}
		}
	}
	return q, nil
}
