package acp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/permission"
)

// Permission option ids, one per answer tandem's engine understands.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optReject      = "reject"
)

// ask forwards a question of the permission engine to the client as
// session/request_permission and maps the choice back.
func (ag *Agent) ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	if q.Kind == permission.Elicitation {
		// ACP has no forms: an MCP server's question is put as a plain
		// request (allow accepts with the form's defaults, reject
		// declines), and an accept the defaults cannot fill declines.
		plain := q
		plain.Kind, plain.Rules = "", nil
		ans, err := ag.ask(ctx, plain)
		return permission.ElicitAnswer(q, ans), err
	}
	if ag.conn == nil {
		return permission.Answer{}, fmt.Errorf("no ACP client is connected")
	}
	var input map[string]any
	_ = json.Unmarshal(q.Input, &input)
	info := describeTool(ag.tools, q.ToolName, q.Input)
	content := diffs(ag.tools, q.ToolName, q.Input)
	if q.Reason != "" {
		content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(q.Reason)))
	}
	tc := acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(q.ToolUseID), Title: acpsdk.Ptr(cmp.Or(q.Summary, info.title)),
		Kind: acpsdk.Ptr(info.kind), RawInput: input, Content: content, Locations: info.locations,
		Status: acpsdk.Ptr(acpsdk.ToolCallStatusPending)}
	if q.Kind != "" {
		return ag.askInteraction(ctx, q, tc)
	}
	opts := []acpsdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow", Kind: acpsdk.PermissionOptionKindAllowOnce}}
	if q.AlwaysOffered() {
		opts = append(opts, acpsdk.PermissionOption{OptionId: optAllowAlways, Name: "Always allow " + q.Suggestion, Kind: acpsdk.PermissionOptionKindAllowAlways})
	}
	opts = append(opts, acpsdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce})

	resp, err := ag.conn.RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: acpsdk.SessionId(q.SessionID), ToolCall: tc, Options: opts})
	if err != nil {
		if ctx.Err() != nil {
			return permission.Answer{}, ctx.Err()
		}
		return permission.Answer{Decision: permission.DenyCall, Message: fmt.Sprintf("the editor could not be asked: %v", err), By: "acp"}, nil
	}
	if resp.Outcome.Selected == nil {
		// The prompt was cancelled while the question was open.
		return permission.Answer{Decision: permission.DenyCall, Message: "The user cancelled the turn.", By: "acp"}, nil
	}
	switch string(resp.Outcome.Selected.OptionId) {
	case optAllowOnce:
		return permission.Answer{Decision: permission.AllowOnce, By: "acp"}, nil
	case optAllowAlways:
		if q.AlwaysOffered() {
			return permission.Answer{Decision: permission.AllowAlways, Scope: permission.ScopeSession, By: "acp"}, nil
		}
		return permission.Answer{Decision: permission.AllowOnce, By: "acp"}, nil
	case optReject:
		return permission.Answer{Decision: permission.DenyCall, Message: "The user rejected this call.", By: "acp"}, nil
	}
	return permission.Answer{Decision: permission.DenyCall, By: "acp",
		Message: fmt.Sprintf("the editor answered with an unknown option %q", resp.Outcome.Selected.OptionId)}, nil
}
