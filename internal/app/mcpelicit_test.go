package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
)

func TestMCPElicitThroughTheBroker(t *testing.T) {
	schema := `{"type":"object","properties":{"repo":{"type":"string"},"count":{"type":"integer","default":3}},"required":["repo"]}`
	q := mcp.Elicitation{Server: "gh", Mode: "form", Message: "Which repo?", Schema: json.RawMessage(schema)}
	// Nobody to ask (headless): cancelled, never accepted.
	if a, err := mcpElicit("s1", nil)(context.Background(), q); err != nil || a.Action != mcp.ElicitCancel {
		t.Fatalf("headless: %+v %v", a, err)
	}
	answer := func(ans permission.Answer) permission.Asker {
		return permission.AskerFunc(func(_ context.Context, got permission.Question) (permission.Answer, error) {
			if got.ToolName != ElicitToolName("gh") || got.SessionID != "s1" || got.Summary != "MCP server gh asks: Which repo?" || got.Kind != permission.Elicitation {
				t.Errorf("question %+v", got)
			}
			var in mcp.Elicitation
			if err := json.Unmarshal(got.Input, &in); err != nil || string(in.Schema) != schema {
				t.Errorf("input %s: %v", got.Input, err)
			}
			return ans, nil
		})
	}
	a, _ := mcpElicit("s1", answer(permission.Answer{Decision: permission.DenyCall}))(context.Background(), q)
	if a.Action != mcp.ElicitDecline {
		t.Fatalf("deny: %+v", a)
	}
	a, _ = mcpElicit("s1", answer(permission.Answer{Decision: permission.Cancel}))(context.Background(), q)
	if a.Action != mcp.ElicitCancel {
		t.Fatalf("cancel: %+v", a)
	}
	a, _ = mcpElicit("s1", answer(permission.Answer{Decision: permission.AllowOnce, UpdatedInput: json.RawMessage(`{"repo":"x/y"}`)}))(context.Background(), q)
	if a.Action != mcp.ElicitAccept || a.Content["repo"] != "x/y" || a.Content["count"] != int64(3) {
		t.Fatalf("allow with values (the default of the one left out applies): %+v", a)
	}
	// An asker that skipped the broker's check: the question is declined,
	// never answered with values that break the form.
	for _, bad := range []string{``, `{"count":2}`, `[1]`} {
		a, _ = mcpElicit("s1", answer(permission.Answer{Decision: permission.AllowOnce, UpdatedInput: json.RawMessage(bad)}))(context.Background(), q)
		if a.Action != mcp.ElicitDecline {
			t.Errorf("allow with %q: %+v", bad, a)
		}
	}
}

// The broker checks an answer to an MCP server's question against its
// form, naming the field, before the server hears it.
func TestElicitAnswerCheckedByTheBroker(t *testing.T) {
	schema := `{"type":"object","properties":{"age":{"type":"integer","title":"Age","minimum":1}},"required":["age"]}`
	input, _ := json.Marshal(mcp.Elicitation{Server: "s", Mode: "form", Message: "m", Schema: json.RawMessage(schema)})
	q := permission.Question{ToolName: ElicitToolName("s"), Input: input, Kind: permission.Elicitation}
	for _, c := range []struct {
		ans  permission.Answer
		want string
	}{
		{permission.Answer{Decision: permission.AllowOnce, UpdatedInput: json.RawMessage(`{"age":"x"}`)}, "Age: must be a number"},
		{permission.Answer{Decision: permission.AllowOnce, UpdatedInput: json.RawMessage(`{"age":0}`)}, "Age: must be at least 1"},
		{permission.Answer{Decision: permission.AllowOnce}, "Age: required"},
		{permission.Answer{Decision: permission.AllowAlways}, "allow_once (accept), deny (decline) or cancel"},
		{permission.Answer{Decision: permission.AllowOnce, UpdatedInput: json.RawMessage(`{"age":4}`)}, ""},
		{permission.Answer{Decision: permission.Cancel}, ""},
	} {
		err := c.ans.Validate(q)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.ans, err, c.want)
		}
	}
	if err := (permission.Answer{Decision: permission.Cancel}).Validate(permission.Question{ToolName: "Bash"}); err == nil {
		t.Error("cancel answered a tool call")
	}
}
