package permission

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/permit"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

// A call that is itself a question to the user (Request.Interaction:
// ExitPlanMode's plan, AskUserQuestion's questions) is not judged like a
// tool that acts: no mode refuses it and no allow rule answers it, since
// only the user can; a deny rule still removes it. It goes to the asker as
// a Question of its Kind, so every front end that answers permission
// questions (terminal, web UI, ACP, the CLI protocol, a chat bridge)
// renders and answers it through the one broker.

// interact asks the user the call's question and turns the answer into the
// decision the tool runs with.
func (e *Engine) interact(ctx context.Context, mode Mode, req Request) (Decision, error) {
	if v := e.judgeByRules(req.Tool, func(r Rule) bool { return r.Pattern == "" }, verdict{action: ActionAsk}); v.action == ActionDeny {
		return Decision{Behavior: Deny, Rule: v.rule, Message: v.reason}, nil
	}
	if req.Interaction == PlanApproval && mode != Explore {
		return Decision{Behavior: Deny, Rule: "mode:" + string(mode), Message: "There is no plan to approve: the session is in " +
			string(mode) + " mode, not explore (plan) mode. Go on with the work."}, nil
	}
	if err := checkInteraction(&req); err != nil {
		return Decision{Behavior: Deny, Rule: "bad-input", Message: err.Error()}, nil
	}
	if e.opts.Asker == nil {
		return Decision{Behavior: Deny, Rule: "no-terminal", Message: nobodyToAnswer(req.Interaction)}, nil
	}
	q := Question{SessionID: req.SessionID, ToolName: req.Tool, ToolUseID: req.ToolUseID, Input: req.Input,
		Kind: req.Interaction, Summary: interactionSummary(req), Reason: interactionReason(req.Interaction)}
	e.notify(ctx, req, mode, q.Summary)
	ans, err := e.opts.Asker.Ask(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return Decision{}, fmt.Errorf("ask the user (%s): %w", req.Tool, err)
		}
		return Decision{Behavior: Deny, Rule: "ask-failed", Message: "could not ask the user: " + err.Error()}, nil
	}
	if ans.Decision != AllowOnce {
		return Decision{Behavior: Deny, Rule: "user:deny", Message: declined(req.Interaction, ans.Message)}, nil
	}
	if req.Interaction == PlanApproval {
		m, err := ParseMode(string(ans.Mode)) // validated by the broker; empty is normal
		if err != nil || m == Explore {
			m = Normal
		}
		return Decision{Behavior: Allow, Rule: "user:approved", Mode: m}, nil
	}
	updated := ans.UpdatedInput
	if len(ans.Answers) > 0 {
		if updated, err = withAnswers(req.Input, ans.Answers); err != nil {
			return Decision{Behavior: Deny, Rule: "ask-failed", Message: err.Error()}, nil
		}
	}
	if len(updated) == 0 {
		updated = req.Input // the model's own "answers" stay out
	}
	return Decision{Behavior: Allow, Rule: "user:answered", UpdatedInput: updated}, nil
}

// checkInteraction checks the call's input before anyone is asked (a
// malformed question goes back to the model) and drops any "answers" the
// model wrote into its own question: only the user's answer sets them.
func checkInteraction(req *Request) error {
	if req.Interaction == PlanApproval {
		_, err := permit.ParsePlan(req.Input)
		return err
	}
	q, err := permit.ParseQuestions(req.Input)
	if err != nil {
		return err
	}
	if q.Answers != nil {
		obj := map[string]json.RawMessage{}
		if err := json.Unmarshal(req.Input, &obj); err != nil {
			return err
		}
		delete(obj, "answers")
		if req.Input, err = json.Marshal(obj); err != nil {
			return err
		}
	}
	return nil
}

// withAnswers is input with its "answers" set, as Claude Code hands
// AskUserQuestion the answers its dialog collected.
func withAnswers(input json.RawMessage, answers map[string]string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(input) > 0 {
		if err := json.Unmarshal(input, &obj); err != nil {
			return nil, fmt.Errorf("the question's input is not a JSON object: %w", err)
		}
	}
	raw, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	obj["answers"] = raw
	return json.Marshal(obj)
}

func interactionSummary(req Request) string {
	if req.Interaction == PlanApproval {
		return "Approve the plan and start working?"
	}
	var in struct {
		Questions []struct {
			Question string `json:"question"`
		} `json:"questions"`
	}
	_ = json.Unmarshal(req.Input, &in)
	if len(in.Questions) == 0 {
		return "The model asks you a question"
	}
	s := termsafe.Line(in.Questions[0].Question)
	if n := len(in.Questions); n > 1 {
		s += fmt.Sprintf(" (and %d more)", n-1)
	}
	return s
}

func interactionReason(k Interaction) string {
	if k == PlanApproval {
		return "the model has a plan; approve it (choose normal or acceptEdits to work in) or deny with feedback to keep planning"
	}
	return "the model asks; choose an option or type an answer, or deny to skip"
}

func nobodyToAnswer(k Interaction) string {
	if k == PlanApproval {
		return "No one can approve a plan in this session (it runs with nobody to ask, such as `tandem run -p`), so it stays in explore mode: give the plan as your answer; to work on it, run again with --permission-mode normal or acceptEdits."
	}
	return "No one can answer questions in this session (it runs with nobody to ask, such as `tandem run -p`): decide yourself, say what you assumed, and go on."
}

func declined(k Interaction, feedback string) string {
	msg := "The user declined to answer."
	if k == PlanApproval {
		msg = "The user did not approve the plan and wants to keep planning: stay in explore mode, revise the plan and present it again with ExitPlanMode."
	}
	if feedback != "" {
		msg += " Their feedback: " + feedback
	}
	return msg
}

// validateInteraction checks an answer to a Question with a Kind: allow
// once (with the mode for a plan, the answers for questions) or deny.
func (a Answer) validateInteraction(q Question) error {
	if q.Kind == Elicitation {
		return a.validateElicitation(q)
	}
	switch a.Decision {
	case DenyCall:
		return nil
	case AllowOnce:
	default:
		return fmt.Errorf("decision %q does not answer a %s: answer allow_once or deny", a.Decision, q.Kind)
	}
	if q.Kind == PlanApproval {
		if a.Mode == "" {
			return nil
		}
		m, err := ParseMode(string(a.Mode))
		if err != nil {
			return fmt.Errorf("plan approval: %w", err)
		}
		if m == Explore {
			return fmt.Errorf("plan approval: approving a plan leaves explore mode; to keep planning answer deny with feedback")
		}
		return nil
	}
	// An allow without answers is taken: the model is told none came.
	return nil
}

func kindMeta(k Interaction) map[string]any {
	if k == "" {
		return nil
	}
	return map[string]any{"kind": string(k)}
}

// validateElicitation checks an answer to an MCP server's question: accept
// (allow_once) with form values that pass the form's check, decline
// (deny) or cancel. Every front end's answer comes through here, so each
// is told which field is wrong.
func (a Answer) validateElicitation(q Question) error {
	switch a.Decision {
	case DenyCall, Cancel:
		return nil
	case AllowOnce:
	default:
		return fmt.Errorf("decision %q does not answer an MCP server's question: answer allow_once (accept), deny (decline) or cancel", a.Decision)
	}
	_, err := ElicitContent(q.Input, a.UpdatedInput)
	return err
}

// ElicitContent is what an accepted elicitation sends the server: the
// answer's values (a JSON object; none: every field left out) checked
// against the question's form, with the defaults of the fields left out.
// In URL mode there is none.
func ElicitContent(input, values json.RawMessage) (map[string]any, error) {
	e, form, err := permit.ParseElicitation(input)
	if err != nil {
		return nil, err
	}
	if e.Mode == permit.ElicitURL {
		return nil, nil
	}
	in := map[string]any{}
	if len(values) > 0 && string(values) != "null" {
		if err := json.Unmarshal(values, &in); err != nil {
			return nil, fmt.Errorf("the form's values are not a JSON object: %w", err)
		}
	}
	return form.Check(in)
}

// ElicitAnswer makes a front end's plain answer (allow or deny, as ACP and
// the SDK protocol give) a valid answer to an MCP server's question q: an
// allow is accepted with its values (none: the defaults) when they pass the
// form's check, and otherwise declines, naming why, so the server is never
// left waiting for an answer the broker refuses.
func ElicitAnswer(q Question, a Answer) Answer {
	if a.Decision == AllowAlways {
		a.Decision, a.Scope = AllowOnce, ""
	}
	if a.Decision != AllowOnce {
		return a
	}
	if _, err := ElicitContent(q.Input, a.UpdatedInput); err != nil {
		return Answer{Decision: DenyCall, Message: err.Error(), By: a.By}
	}
	return a
}
