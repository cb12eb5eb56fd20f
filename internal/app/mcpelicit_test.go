package app

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
)

func TestMCPElicitThroughTheBroker(t *testing.T) {
	q := mcp.Elicitation{Server: "gh", Mode: "form", Message: "Which repo?", Schema: json.RawMessage(`{"type":"object"}`)}
	// Nobody to ask (headless): cancelled, never accepted.
	if a, err := mcpElicit("s1", nil)(context.Background(), q); err != nil || a.Action != mcp.ElicitCancel {
		t.Fatalf("headless: %+v %v", a, err)
	}
	answer := func(ans permission.Answer) permission.Asker {
		return permission.AskerFunc(func(_ context.Context, got permission.Question) (permission.Answer, error) {
			if got.ToolName != ElicitToolName("gh") || got.SessionID != "s1" || got.Summary != "MCP server gh asks: Which repo?" {
				t.Errorf("question %+v", got)
			}
			var in mcp.Elicitation
			if err := json.Unmarshal(got.Input, &in); err != nil || string(in.Schema) != `{"type":"object"}` {
				t.Errorf("input %s: %v", got.Input, err)
			}
			return ans, nil
		})
	}
	a, _ := mcpElicit("s1", answer(permission.Answer{Decision: permission.DenyCall}))(context.Background(), q)
	if a.Action != mcp.ElicitDecline {
		t.Fatalf("deny: %+v", a)
	}
	a, _ = mcpElicit("s1", answer(permission.Answer{Decision: permission.AllowOnce, UpdatedInput: json.RawMessage(`{"repo":"x/y"}`)}))(context.Background(), q)
	if a.Action != mcp.ElicitAccept || a.Content["repo"] != "x/y" {
		t.Fatalf("allow with values: %+v", a)
	}
	a, _ = mcpElicit("s1", answer(permission.Answer{Decision: permission.AllowOnce}))(context.Background(), q)
	if a.Action != mcp.ElicitAccept || a.Content != nil {
		t.Fatalf("allow without values (defaults apply): %+v", a)
	}
	if _, err := mcpElicit("s1", answer(permission.Answer{Decision: permission.AllowOnce, UpdatedInput: json.RawMessage(`[1]`)}))(context.Background(), q); err == nil {
		t.Fatal("a non-object answer was accepted")
	}
}
