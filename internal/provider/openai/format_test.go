package openai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

const personPrompt = "Generate information about a person named Alice who is 30 years old and lives in Paris."

// --json-schema on Chat Completions: the request is the recorded
// object-generation request (response_format json_schema, strict, the
// schema) but for the schema's name and description, which tandem does
// not have; the recorded answer comes back as the text.
func TestOpenAIOutputSchemaRecorded(t *testing.T) {
	for _, model := range []string{"openai-gpt-4o", "openai-gpt-4o-mini"} {
		t.Run(model, func(t *testing.T) {
			c := providertest.LoadCassette(t, "TestOpenAIObjectGeneration/"+model+"/simple_object_streaming.yaml")
			var recorded struct {
				Model          string `json:"model"`
				ResponseFormat struct {
					JSONSchema map[string]json.RawMessage `json:"json_schema"`
				} `json:"response_format"`
			}
			if err := json.Unmarshal([]byte(c.Interactions[0].Request.Body), &recorded); err != nil {
				t.Fatal(err)
			}
			rs := providertest.NewReplayServer(t, c, nil)
			p, err := New(provider.Config{Name: "openai", Kind: provider.KindOpenAI, BaseURL: rs.URL + "/v1", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			req := provider.Request{Model: recorded.Model, MaxTokens: 4000, OutputSchema: recorded.ResponseFormat.JSONSchema["schema"],
				Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock(personPrompt)}}}}
			resp, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			providertest.AssertSameJSON(t, model, rs.Body(0), []byte(c.Interactions[0].Request.Body), "name", "description")
			var person struct {
				Name string `json:"name"`
				Age  int    `json:"age"`
			}
			if err := json.Unmarshal([]byte(providertest.TextOf(resp)), &person); err != nil || person.Name != "Alice" || person.Age != 30 {
				t.Errorf("answer %q: %v", providertest.TextOf(resp), err)
			}
		})
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
