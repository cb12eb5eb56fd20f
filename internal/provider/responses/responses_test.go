package responses

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

func responsesFor(t *testing.T, rs *providertest.ReplayServer) provider.Provider {
	t.Helper()
	p, err := New(provider.Config{Name: "openai", Kind: provider.KindOpenAIResponses, BaseURL: rs.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Real Responses traffic (gpt-5): a tool call, its result sent back as a
// function_call_output with the same call id, then the answer.
func TestResponsesToolRoundTrip(t *testing.T) {
	for _, model := range []string{"openai-gpt-5", "openai-gpt-4o", "openai-o4-mini"} {
		t.Run(model, func(t *testing.T) {
			rs := providertest.NewReplayServer(t, providertest.LoadCassette(t, "TestOpenAIResponsesCommon/"+model+"/tool_streaming.yaml"), nil)
			p := responsesFor(t, rs)
			id := strings.TrimPrefix(model, "openai-")
			req := provider.Request{Model: id, System: []string{"You are a helpful assistant"}, Tools: []provider.ToolSpec{providertest.WeatherTool}, MaxTokens: 4000,
				Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("What's the weather in Florence,Italy?")}}}}
			var deltas []provider.Delta
			r1, err := p.Stream(context.Background(), req, func(d provider.Delta) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatal(err)
			}
			var call message.Block
			for _, b := range r1.Content {
				if b.Type == message.ToolUse {
					call = b
				}
			}
			if r1.StopReason != "tool_use" || call.Name != "weather" || !strings.HasPrefix(call.ID, "call_") || !strings.Contains(string(call.Input), "Florence") {
				t.Fatalf("first step: %+v", r1)
			}
			if r1.Usage.InputTokens == 0 || r1.Usage.OutputTokens == 0 {
				t.Errorf("usage: %+v", r1.Usage)
			}
			started := false
			for _, d := range deltas {
				started = started || (d.Kind == provider.DeltaToolStart && d.ToolID == call.ID)
			}
			if !started {
				t.Errorf("no tool start delta: %+v", deltas)
			}
			req.Messages = append(req.Messages, message.Message{Role: message.Assistant, Content: r1.Content},
				message.Message{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: call.ID, Content: []message.Block{message.TextBlock("40 C")}}}})
			r2, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r2.StopReason != "end_turn" || !strings.Contains(providertest.MessageText(r2.Content), "40") {
				t.Errorf("second step: %+v", r2)
			}
			var sent struct {
				Store        bool              `json:"store"`
				Instructions string            `json:"instructions"`
				Input        []json.RawMessage `json:"input"`
			}
			if err := json.Unmarshal(rs.Body(1), &sent); err != nil {
				t.Fatal(err)
			}
			body := string(rs.Body(1))
			if sent.Store || sent.Instructions != "You are a helpful assistant" || !strings.Contains(body, `"type":"function_call_output"`) ||
				!strings.Contains(body, `"call_id":"`+call.ID+`"`) || !strings.Contains(body, `"output":"40 C"`) {
				t.Errorf("second request: %s", body)
			}
			if strings.Contains(body, `"type":"reasoning"`) {
				t.Error("a reasoning item without encrypted content was sent back (store=false cannot resolve it)")
			}
		})
	}
}

// Reasoning summaries stream as thinking and end up in a thinking block.
func TestResponsesReasoningSummary(t *testing.T) {
	rs := providertest.NewReplayServer(t, providertest.LoadCassette(t, "TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking-streaming.yaml"), nil)
	p := responsesFor(t, rs)
	var thinking strings.Builder
	r, err := p.Stream(context.Background(), provider.Request{Model: "gpt-5", MaxTokens: 4000,
		Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("think")}}}},
		func(d provider.Delta) {
			if d.Kind == provider.DeltaThinking {
				thinking.WriteString(d.Text)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	var block message.Block
	for _, b := range r.Content {
		if b.Type == message.Thinking {
			block = b
		}
	}
	if thinking.Len() == 0 || block.Text == "" || block.Provider != "openai" || !strings.Contains(block.Signature, `"id":"rs_`) {
		t.Errorf("thinking %q, block %+v", thinking.String(), block)
	}
	if r.Usage.ReasoningTokens == 0 {
		t.Errorf("reasoning tokens: %+v", r.Usage)
	}
	if !strings.Contains(string(rs.Body(0)), `"include":["reasoning.encrypted_content"]`) || !strings.Contains(string(rs.Body(0)), `"summary":"auto"`) {
		t.Errorf("request: %s", rs.Body(0))
	}
}

// Encrypted reasoning goes back verbatim, before the call it led to, and
// only to the provider that made it.
func TestResponsesEncryptedReasoningGoesBack(t *testing.T) {
	acc := newResponsesAccumulator("openai", nil)
	for _, ev := range []string{
		`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[{"text":"plan"}],"encrypted_content":"ENC"}}`,
		`{"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","call_id":"call_1","name":"Read","arguments":"{\"file_path\":\"a\"}"}}`,
		`{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":100,"output_tokens":10,"input_tokens_details":{"cached_tokens":60},"output_tokens_details":{"reasoning_tokens":7}}}}`,
	} {
		if err := acc.add([]byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	r := acc.response("gpt-5")
	if r.Usage.InputTokens != 40 || r.Usage.CacheReadTokens != 60 || r.StopReason != "tool_use" {
		t.Errorf("response: %+v", r)
	}
	msgs := []message.Message{{Role: message.Assistant, Content: r.Content}}
	items := responsesInput("openai", provider.Request{Messages: msgs})
	b, _ := json.Marshal(items)
	if got := string(b); !strings.HasPrefix(got, `[{"encrypted_content":"ENC","id":"rs_1","summary":[{"text":"plan","type":"summary_text"}],"type":"reasoning"},{"arguments"`) {
		t.Errorf("items: %s", got)
	}
	if other, _ := json.Marshal(responsesInput("azure", provider.Request{Messages: msgs})); strings.Contains(string(other), "reasoning") {
		t.Errorf("reasoning went to another provider: %s", other)
	}
}

func TestResponsesErrorEvents(t *testing.T) {
	acc := newResponsesAccumulator("openai", nil)
	err := acc.add([]byte(`{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"try again"}}}`))
	if pe, ok := provider.AsError(err); !ok || !pe.Retryable || pe.Message != "try again" {
		t.Errorf("server error: %v", err)
	}
	err = acc.add([]byte(`{"type":"error","code":"invalid_prompt","message":"bad"}`))
	if pe, ok := provider.AsError(err); !ok || pe.Retryable {
		t.Errorf("invalid prompt: %v", err)
	}
}

// The openai preset sends the models the catalog marks as Responses-only
// through the Responses API, every other one through Chat Completions.
func TestOpenAIRoutesResponsesOnlyModels(t *testing.T) {
	rs := providertest.NewReplayServer(t, providertest.LoadCassette(t, "TestOpenAIResponsesCommon/openai-gpt-5/simple_streaming.yaml"), nil)
	p, err := New(provider.Config{Name: "openai", Kind: provider.KindOpenAI, BaseURL: rs.URL + "/v1", APIKey: "k", ResponsesModels: []string{"gpt-5-codex"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), provider.Request{Model: "gpt-5-codex", Messages: []message.Message{{Role: message.User,
		Content: []message.Block{message.TextBlock("hi")}}}}, nil); err != nil {
		t.Fatal(err)
	}
	if rs.Paths[0] != "/v1/responses" {
		t.Errorf("gpt-5-codex went to %s", rs.Paths[0])
	}
}

// --json-schema on the Responses API: the schema goes as text.format in the
// shape the recorded object-generation traffic has, and the recorded
// answer comes back as the text.
func TestResponsesOutputSchema(t *testing.T) {
	c := providertest.LoadCassette(t, "TestOpenAIResponsesObjectGeneration/openai-gpt-4o-mini/simple_object_streaming.yaml")
	var recorded struct {
		Text struct {
			Format map[string]json.RawMessage `json:"format"`
		} `json:"text"`
	}
	if err := json.Unmarshal([]byte(c.Interactions[0].Request.Body), &recorded); err != nil {
		t.Fatal(err)
	}
	rs := providertest.NewReplayServer(t, c, nil)
	p := responsesFor(t, rs)
	schema := recorded.Text.Format["schema"]
	req := provider.Request{Model: "gpt-4o-mini", MaxTokens: 4000, OutputSchema: schema,
		Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("Generate information about a person named Alice who is 30 years old and lives in Paris.")}}}}
	resp, err := p.Stream(context.Background(), req, func(provider.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Text struct {
			Format map[string]json.RawMessage `json:"format"`
		} `json:"text"`
	}
	if err := json.Unmarshal(rs.Bodies[0], &sent); err != nil {
		t.Fatal(err)
	}
	for k := range recorded.Text.Format {
		if _, ok := sent.Text.Format[k]; !ok {
			t.Errorf("text.format lacks %q: %s", k, rs.Bodies[0])
		}
	}
	if string(sent.Text.Format["type"]) != `"json_schema"` || !jsonEqual(sent.Text.Format["schema"], schema) {
		t.Errorf("text.format %s", rs.Bodies[0])
	}
	var person map[string]any
	if err := json.Unmarshal([]byte(resp.Content[len(resp.Content)-1].Text), &person); err != nil || person["name"] == nil {
		t.Errorf("answer %+v: %v", resp.Content, err)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// Real parallel tool calls (add and multiply, their arguments streamed in
// deltas): both come back whole, and the next request carries both calls
// and both outputs exactly as the recorded one did.
func TestResponsesParallelToolsRecorded(t *testing.T) {
	numbers := json.RawMessage(`{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`)
	tools := []provider.ToolSpec{{Name: "add", Description: "Add two numbers", InputSchema: numbers},
		{Name: "multiply", Description: "Multiply two numbers", InputSchema: numbers}}
	for _, model := range []string{"openai-gpt-5", "openai-gpt-4o", "openai-gpt-4o-mini"} {
		t.Run(model, func(t *testing.T) {
			c := providertest.LoadCassette(t, "TestOpenAIResponsesCommon/"+model+"/multi_tool_streaming.yaml")
			rs := providertest.NewReplayServer(t, c, nil)
			p := responsesFor(t, rs)
			req := provider.Request{Model: strings.TrimPrefix(model, "openai-"), MaxTokens: 4000, Tools: tools,
				System:   []string{"You are a helpful assistant. Always use both add and multiply at the same time."},
				Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("Add and multiply the number 2 and 3")}}}}
			r1, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			calls := (message.Message{Content: r1.Content}).ToolUses()
			if r1.StopReason != "tool_use" || len(calls) != 2 || calls[0].Name != "add" || calls[1].Name != "multiply" {
				t.Fatalf("first step: %+v", r1)
			}
			results := map[string]string{"add": "5", "multiply": "6"}
			var out []message.Block
			for _, call := range calls {
				if !jsonEqual(call.Input, json.RawMessage(`{"a":2,"b":3}`)) {
					t.Errorf("%s input %s", call.Name, call.Input)
				}
				out = append(out, message.Block{Type: message.ToolResult, ToolUseID: call.ID, Content: []message.Block{message.TextBlock(results[call.Name])}})
			}
			req.Messages = append(req.Messages, message.Message{Role: message.Assistant, Content: r1.Content}, message.Message{Role: message.User, Content: out})
			r2, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if text := providertest.MessageText(r2.Content); r2.StopReason != "end_turn" || !strings.Contains(text, "5") || !strings.Contains(text, "6") {
				t.Errorf("second step: %+v", r2)
			}
			if got, want := callItems(t, rs.Body(1)), callItems(t, []byte(c.Interactions[1].Request.Body)); !jsonEqual(got, want) {
				t.Errorf("sent %s\nrecorded %s", got, want)
			}
		})
	}
}

// callItems are the function_call and function_call_output items of a
// request body.
func callItems(t *testing.T, body []byte) json.RawMessage {
	t.Helper()
	var b struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	for _, it := range b.Input {
		if it["type"] == "function_call" || it["type"] == "function_call_output" {
			items = append(items, it)
		}
	}
	out, _ := json.Marshal(items)
	return out
}
