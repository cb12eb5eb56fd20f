// Package structured makes a turn's final answer conform to a JSON Schema
// (`--json-schema`): it compiles the schema, tells the model what is
// wanted, pulls the JSON out of the answer and validates it, and words
// the repair request when the answer does not conform.
package structured

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a compiled JSON Schema.
type Schema struct {
	raw      json.RawMessage
	resolved *jsonschema.Resolved
}

// Compile checks raw is a JSON Schema tandem can validate against (draft
// 2020-12 or draft-07) and compiles it.
func Compile(raw json.RawMessage) (*Schema, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("the JSON schema is not valid JSON: %w", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(compact.Bytes(), &s); err != nil {
		return nil, fmt.Errorf("not a JSON schema: %w", err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the JSON schema does not compile: %w", err)
	}
	return &Schema{raw: compact.Bytes(), resolved: res}, nil
}

// Raw is the schema as compact JSON.
func (s *Schema) Raw() json.RawMessage { return s.raw }

// Instruction is the system prompt text that asks for a conforming answer.
func (s *Schema) Instruction() string {
	return "When you have finished the task, your final answer must be a single JSON value that conforms to this JSON Schema, " +
		"and nothing else (no prose, no code fences):\n" + string(s.raw)
}

// Check extracts the JSON value from the answer text and validates it. It
// returns the value (compact) or an error saying what is wrong, worded
// for the model.
func (s *Schema) Check(answer string) (json.RawMessage, error) {
	text := unfence(strings.TrimSpace(answer))
	if text == "" {
		return nil, errors.New("the answer is empty; a JSON value was expected")
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the answer holds more than one JSON value, or text after it")
	}
	// The validator wants plain Go values (float64 numbers).
	var plain any
	_ = json.Unmarshal([]byte(text), &plain)
	if err := s.resolved.Validate(plain); err != nil {
		return nil, fmt.Errorf("the answer does not conform to the schema: %v", err)
	}
	var out bytes.Buffer
	_ = json.Compact(&out, []byte(text))
	return out.Bytes(), nil
}

// RepairPrompt is the user message of the one repair attempt.
func RepairPrompt(problem error) string {
	return "Your final answer was not accepted: " + problem.Error() +
		". Answer again with only a JSON value that conforms to the JSON Schema you were given."
}

// unfence removes one ```json ... ``` fence around the whole text, which
// models add despite being asked not to.
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(s, "```"), "```")
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], "{[\"") {
		inner = inner[nl+1:]
	}
	return strings.TrimSpace(inner)
}
