package anthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// sentOutputFormat sends a --json-schema request for a model that takes
// output_config.format and returns the format the server received.
func sentOutputFormat(t *testing.T, transport string, native bool) any {
	t.Helper()
	srv, url := testfiles.Scripted(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep(`{"n":1}`)}})
	p, err := New(provider.Config{Name: "a", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k", Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	req := provider.Request{Model: "claude-sonnet-4-5", Effort: "low", NativeOutput: native,
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`),
		Messages:     []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("n?")}}},
		Tools:        []provider.ToolSpec{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	oc, _ := srv.MainRequests()[0].Body["output_config"].(map[string]any)
	if oc["effort"] != "low" {
		t.Errorf("output_config.effort lost beside the format: %v", oc)
	}
	return oc["format"]
}

// The schema goes as output_config.format in the form the API takes
// (objects closed, keywords it refuses moved into descriptions), beside
// tools and effort; not for a model without the capability, and not
// through the claude-code-compat transport, whose shape is Claude Code's.
func TestOutputFormatSent(t *testing.T) {
	f, _ := sentOutputFormat(t, "", true).(map[string]any)
	schema, _ := f["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	n, _ := props["n"].(map[string]any)
	if f["type"] != "json_schema" || schema["additionalProperties"] != false || n["type"] != "integer" || n["minimum"] != nil {
		t.Errorf("output_config.format %v", f)
	}
	if f := sentOutputFormat(t, "", false); f != nil {
		t.Errorf("format sent to a model without the capability: %v", f)
	}
	if f := sentOutputFormat(t, provider.TransportClaudeCodeCompat, true); f != nil {
		t.Errorf("format sent through claude-code-compat: %v", f)
	}
}
