package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

func TestDefaultTools(t *testing.T) {
	ts := Default(Options{})
	reg := tool.NewRegistry(ts...)
	want := []string{"AskUserQuestion", "Bash", "BashOutput", "Edit", "ExitPlanMode", "Glob", "Grep", "KillShell", "MultiEdit", "Read", "TodoWrite", "WebFetch", "WebSearch", "Write"}
	if got := strings.Join(reg.Names(), ","); got != strings.Join(want, ",") {
		t.Fatalf("tools = %s, want %s", got, strings.Join(want, ","))
	}
	env := tool.NewEnv("s", t.TempDir(), nil, "")
	for _, tl := range ts {
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tl.Schema(), &schema); err != nil || schema.Type != "object" || len(schema.Required) == 0 {
			t.Errorf("%s: bad schema: %v", tl.Name(), err)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q not in properties", tl.Name(), r)
			}
		}
		if len(tl.Description()) < 200 {
			t.Errorf("%s: description too short", tl.Name())
		}
		// Hostile input never becomes a Go error.
		for _, in := range []string{`null`, `[]`, `"x"`, `{"file_path":7}`, `{}`, `{"todos":null}`} {
			res, err := tl.Execute(context.Background(), tool.Call{ID: "x", Name: tl.Name(), Input: json.RawMessage(in), Env: env})
			if err != nil {
				t.Errorf("%s(%s): Go error %v", tl.Name(), in, err)
			} else if !res.IsError {
				t.Errorf("%s(%s): expected an error result, got %q", tl.Name(), in, res.Content)
			}
		}
		// Without an Env the tool reports a failure, never panics.
		if res, err := tl.Execute(context.Background(), tool.Call{Input: json.RawMessage(`{}`)}); err == nil && !res.IsError {
			t.Errorf("%s: nil Env should fail", tl.Name())
		}
	}
	if ro, ok := ts[0].(tool.ReadOnly); !ok || !ro.ReadOnly() {
		t.Error("Read must implement tool.ReadOnly")
	}
}

// The redaction wrapper keeps a tool's tool.Availability, so WebSearch
// without a backend stays out of requests.
func TestRedactingKeepsAvailability(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret-value") // a secret to redact: tools get wrapped
	for _, tl := range Default(Options{}) {
		if tl.Name() != "WebSearch" {
			continue
		}
		if tool.UnavailableReason(tl, "openai/gpt-5") == "" {
			t.Errorf("WebSearch without a backend (wrapped as %T) is offered", tl)
		}
		return
	}
	t.Fatal("no WebSearch among the default tools")
}
