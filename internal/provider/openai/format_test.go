package openai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

// --json-schema on Chat Completions: the request is the recorded
// object-generation request (response_format json_schema, strict, the
// schema; max_completion_tokens for the reasoning models) but for the
// schema's name and description, which tandem does not have; the recorded
// answer comes back as the text.
func TestOpenAIOutputSchemaRecorded(t *testing.T) {
	for _, model := range []string{"openai-gpt-4o", "openai-gpt-4o-mini", "openai-gpt-5", "openai-o4-mini"} {
		for _, name := range []string{"simple_object_streaming", "complex_object_streaming"} {
			t.Run(model+"/"+name, func(t *testing.T) {
				c := providertest.LoadCassette(t, "TestOpenAIObjectGeneration/"+model+"/"+name+".yaml")
				var recorded struct {
					Model    string `json:"model"`
					Messages []struct {
						Content string `json:"content"`
					} `json:"messages"`
					ResponseFormat struct {
						JSONSchema map[string]json.RawMessage `json:"json_schema"`
					} `json:"response_format"`
				}
				if err := json.Unmarshal([]byte(c.Interactions[0].Request.Body), &recorded); err != nil || len(recorded.Messages) != 1 {
					t.Fatalf("recorded request: %v", err)
				}
				rs := providertest.NewReplayServer(t, c, nil)
				p, err := New(provider.Config{Name: "openai", Kind: provider.KindOpenAI, BaseURL: rs.URL + "/v1", APIKey: "k"})
				if err != nil {
					t.Fatal(err)
				}
				req := provider.Request{Model: recorded.Model, MaxTokens: 4000, OutputSchema: recorded.ResponseFormat.JSONSchema["schema"],
					Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock(recorded.Messages[0].Content)}}}}
				resp, err := p.Stream(context.Background(), req, nil)
				if err != nil {
					t.Fatal(err)
				}
				providertest.AssertSameJSON(t, model, rs.Body(0), []byte(c.Interactions[0].Request.Body), "name", "description")
				var answer map[string]any
				if err := json.Unmarshal([]byte(providertest.TextOf(resp)), &answer); err != nil || len(answer) == 0 {
					t.Errorf("answer %q: %v", providertest.TextOf(resp), err)
				}
				if name == "simple_object_streaming" && (answer["name"] != "Alice" || answer["age"] != float64(30)) {
					t.Errorf("answer %v", answer)
				}
			})
		}
	}
}

// Strict mode only for schemas that already obey its rules: a strict
// request with any other schema is refused by the API.
func TestStrictSchema(t *testing.T) {
	for _, c := range []struct {
		schema string
		strict bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"integer"}},"required":["b"],"additionalProperties":false}}},"required":["a"],"additionalProperties":false}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, false},                                                    // open object
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`, false}, // b optional
		{`{"type":"object","properties":{"a":{"type":"object","properties":{}}},"required":["a"],"additionalProperties":false}`, false},       // nested open
		{`{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"],"additionalProperties":false}`, false},         // unknown keyword
	} {
		f, err := newOutputFormat(json.RawMessage(c.schema))
		if f == nil {
			t.Fatalf("%s: not sent natively (%v)", c.schema, err)
		}
		if err != nil || f.strict != c.strict {
			t.Errorf("%s: strict %v, want %v (%v)", c.schema, f != nil && f.strict, c.strict, err)
		}
	}
}

// A schema whose root is not an object stays in the prompt only.
func TestNonObjectSchemaNotSentNatively(t *testing.T) {
	f, err := newOutputFormat(json.RawMessage(`{"type":"array","items":{"type":"string"}}`))
	if f != nil || err != nil {
		t.Errorf("format %+v, err %v", f, err)
	}
}
