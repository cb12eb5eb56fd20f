package acp

import (
	"context"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permit"
)

// Option ids of a plan approval: the mode to work in, or keep planning.
const (
	optPlanAcceptEdits = "plan_accept_edits"
	optPlanNormal      = "plan_normal"
)

// askInteraction puts a question of a kind (permission.Question.Kind) to
// the editor as session/request_permission, the one question ACP has: a
// plan with "approve, accept edits", "approve, ask before edits" and "keep
// planning"; the model's questions one request each, their options the
// permission options (a multi-select question takes one of them, since
// the protocol picks one) and "skip".
func (ag *Agent) askInteraction(ctx context.Context, q permission.Question, tc acpsdk.ToolCallUpdate) (permission.Answer, error) {
	if q.Kind == permission.PlanApproval {
		p, _ := permit.ParsePlan(q.Input)
		tc.Content = []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(p.Plan))}
		tc.Title = acpsdk.Ptr("Approve the plan?")
		opts := []acpsdk.PermissionOption{
			{OptionId: optPlanAcceptEdits, Name: "Yes, and accept edits", Kind: acpsdk.PermissionOptionKindAllowAlways},
			{OptionId: optPlanNormal, Name: "Yes, and ask before edits", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: optReject, Name: "No, keep planning", Kind: acpsdk.PermissionOptionKindRejectOnce},
		}
		id, err := ag.choose(ctx, q, tc, opts)
		if err != nil || id == "" {
			return unanswered(ctx, err)
		}
		switch id {
		case optPlanAcceptEdits:
			return permission.Answer{Decision: permission.AllowOnce, Mode: permission.AcceptEdits, By: "acp"}, nil
		case optPlanNormal:
			return permission.Answer{Decision: permission.AllowOnce, Mode: permission.Normal, By: "acp"}, nil
		}
		return permission.Answer{Decision: permission.DenyCall, By: "acp"}, nil
	}
	qs, err := permit.ParseQuestions(q.Input)
	if err != nil {
		return permission.Answer{Decision: permission.DenyCall, Message: err.Error(), By: "acp"}, nil
	}
	answers := map[string]string{}
	for _, aq := range qs.Questions {
		tc.Title = acpsdk.Ptr(aq.Question)
		tc.Content = nil
		opts := make([]acpsdk.PermissionOption, 0, len(aq.Options)+1)
		for i, o := range aq.Options {
			name := o.Label
			if o.Description != "" {
				name += ": " + o.Description
			}
			opts = append(opts, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId(fmt.Sprintf("option_%d", i)), Name: name, Kind: acpsdk.PermissionOptionKindAllowOnce})
		}
		opts = append(opts, acpsdk.PermissionOption{OptionId: optReject, Name: "Skip this question", Kind: acpsdk.PermissionOptionKindRejectOnce})
		id, err := ag.choose(ctx, q, tc, opts)
		if err != nil || id == "" {
			return unanswered(ctx, err)
		}
		for i, o := range aq.Options {
			if id == fmt.Sprintf("option_%d", i) {
				answers[aq.Question] = o.Label
			}
		}
	}
	if len(answers) == 0 {
		return permission.Answer{Decision: permission.DenyCall, Message: "The user skipped the questions.", By: "acp"}, nil
	}
	return permission.Answer{Decision: permission.AllowOnce, Answers: answers, By: "acp"}, nil
}

// unanswered is the answer when the editor chose nothing: the prompt was
// cancelled, or the editor could not be asked (denied, said to the model).
func unanswered(ctx context.Context, err error) (permission.Answer, error) {
	if ctx.Err() != nil {
		return permission.Answer{}, ctx.Err()
	}
	if err != nil {
		return permission.Answer{Decision: permission.DenyCall, Message: fmt.Sprintf("the editor could not be asked: %v", err), By: "acp"}, nil
	}
	return permission.Answer{Decision: permission.DenyCall, Message: "The user cancelled the turn.", By: "acp"}, nil
}

// choose sends one request_permission and returns the chosen option's id
// ("" when the prompt was cancelled meanwhile).
func (ag *Agent) choose(ctx context.Context, q permission.Question, tc acpsdk.ToolCallUpdate, opts []acpsdk.PermissionOption) (string, error) {
	resp, err := ag.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: acpsdk.SessionId(q.SessionID), ToolCall: tc, Options: opts})
	if err != nil {
		return "", err
	}
	if resp.Outcome.Selected == nil {
		return "", nil
	}
	return string(resp.Outcome.Selected.OptionId), nil
}
