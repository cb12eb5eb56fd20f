package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/turn"
)

func TestTurnFlags(t *testing.T) {
	b := int64(3000)
	in := turn.Input{Model: "anthropic/claude-sonnet-5-5", JSONSchema: json.RawMessage(`{"type":"object"}`),
		FallbackModels: []string{"anthropic/claude-sonnet-5-5", "anthropic/claude-opus-4-5", "openai/gpt-5", "claude-opus-4-5", "claude-haiku-4-5"},
		Effort:         "high", ThinkingBudget: &b}
	got := strings.Join(buildArgs(Config{}, Options{Effort: "low", ThinkingBudget: 9000, DisallowedTools: []string{"mcp__fs__rm"}}, in, launch{}), " ")
	for _, want := range []string{`--json-schema {"type":"object"}`, "--fallback-model claude-opus-4-5,claude-haiku-4-5 ",
		"--effort high", "--max-thinking-tokens 3000", "--disallowedTools mcp__fs__rm"} {
		if !strings.Contains(got, want) {
			t.Errorf("args lack %q:\n%s", want, got)
		}
	}
	got = strings.Join(buildArgs(Config{}, Options{Effort: "low", ThinkingBudget: 9000}, turn.Input{Model: "anthropic/m"}, launch{}), " ")
	if !strings.Contains(got, "--effort low") || !strings.Contains(got, "--max-thinking-tokens 9000") || strings.Contains(got, "--fallback-model") || strings.Contains(got, "--json-schema") {
		t.Errorf("configured values: %s", got)
	}
	zero := int64(0)
	got = strings.Join(buildArgs(Config{}, Options{ThinkingBudget: 9000}, turn.Input{ThinkingBudget: &zero}, launch{}), " ")
	if !strings.Contains(got, "--thinking disabled") || strings.Contains(got, "--max-thinking-tokens") || strings.Contains(got, "--effort") {
		t.Errorf("thinking off for the turn: %s", got)
	}
}

func TestMapFallbackAndStructuredOutput(t *testing.T) {
	var msgs []Msg
	for _, l := range []string{
		`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":5,"error_status":529,"error":"overloaded"}`,
		`{"type":"system","subtype":"model_fallback","trigger":"overloaded","original_model":"claude-sonnet-5-5","fallback_model":"claude-opus-4-5"}`,
		`{"type":"result","subtype":"success","result":"{\"a\": 1}","structured_output":{"a": 1},"num_turns":1}`,
		`{"type":"result","subtype":"error_max_structured_output_retries","is_error":true,"errors":["no conforming answer"]}`,
	} {
		m, ok, err := ParseLine([]byte(l))
		if !ok || err != nil {
			t.Fatalf("parse %s: %v", l, err)
		}
		msgs = append(msgs, m)
	}
	evs := MapAll(msgs)
	if fb := evs[1]; fb.Model != "claude-opus-4-5" || fb.HTTPStatus != 529 || fb.Error != "overloaded" {
		t.Errorf("fallback event %+v", fb)
	}
	if r := evs[2]; string(r.StructuredOutput) != `{"a":1}` || r.Result != `{"a": 1}` {
		t.Errorf("result %+v", r)
	}
	if r := evs[3]; r.Subtype != "error_during_execution" || r.Error != "no conforming answer" || r.StructuredOutput != nil {
		t.Errorf("failed structured result %+v", r)
	}
}
