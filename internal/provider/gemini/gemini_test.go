package gemini

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

func geminiFor(t *testing.T, rs *providertest.ReplayServer) provider.Provider {
	t.Helper()
	p, err := New(provider.Config{Name: "gemini", Kind: provider.KindGemini, BaseURL: rs.URL + "/v1beta", APIKey: "gk"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Real Gemini traffic: a function call with its thought signature, the
// result sent back as a functionResponse (with the signature on the call),
// then the answer.
func TestGeminiToolRoundTrip(t *testing.T) {
	for _, model := range []string{"gemini-2.5-flash", "gemini-2.5-pro", "gemini-3-pro-preview"} {
		t.Run(model, func(t *testing.T) {
			rs := providertest.NewReplayServer(t, providertest.LoadCassette(t, "TestGoogleCommon/"+model+"/tool_streaming.yaml"), nil)
			p := geminiFor(t, rs)
			req := provider.Request{Model: model, System: []string{"You are a helpful assistant"}, Tools: []provider.ToolSpec{providertest.WeatherTool}, MaxTokens: 4000,
				Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("What's the weather in Florence,Italy?")}}}}
			r1, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			var call message.Block
			for _, b := range r1.Content {
				if b.Type == message.ToolUse {
					call = b
				}
			}
			if r1.StopReason != "tool_use" || call.Name != "weather" || !strings.Contains(string(call.Input), "Florence") || call.ID == "" {
				t.Fatalf("first step: %+v", r1)
			}
			if r1.Usage.InputTokens == 0 || r1.Usage.OutputTokens == 0 {
				t.Errorf("usage: %+v", r1.Usage)
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
			sent := string(rs.Body(1))
			if !strings.Contains(sent, `"functionResponse":{`) || !strings.Contains(sent, `"response":{"result":"40 C"}`) {
				t.Errorf("second request: %s", sent)
			}
			if call.Signature != "" && !strings.Contains(sent, `"thoughtSignature":"`+call.Signature+`"`) {
				t.Error("the function call's thought signature was not sent back")
			}
			if rs.Headers[0].Get("X-Goog-Api-Key") != "gk" || rs.Headers[0].Get("Authorization") != "" {
				t.Errorf("auth headers: %v", rs.Headers[0])
			}
			if !strings.HasSuffix(rs.Paths[0], "/models/"+model+":streamGenerateContent") {
				t.Errorf("path %s", rs.Paths[0])
			}
		})
	}
}

// Thought summaries stream as thinking.
func TestGeminiThinking(t *testing.T) {
	rs := providertest.NewReplayServer(t, providertest.LoadCassette(t, "TestGoogleThinking/gemini-2.5-flash/thinking-streaming.yaml"), nil)
	p := geminiFor(t, rs)
	var thinking strings.Builder
	r, err := p.Stream(context.Background(), provider.Request{Model: "gemini-2.5-flash", ThinkingBudget: 1024,
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
	if thinking.Len() == 0 || block.Text != thinking.String() || block.Provider != "gemini" || r.Usage.ReasoningTokens == 0 {
		t.Errorf("thinking %q block %+v usage %+v", thinking.String(), block, r.Usage)
	}
	var body map[string]any
	_ = json.Unmarshal(rs.Body(0), &body)
	tc := body["generationConfig"].(map[string]any)["thinkingConfig"].(map[string]any)
	if tc["includeThoughts"] != true || tc["thinkingBudget"] != float64(1024) {
		t.Errorf("thinkingConfig %v", tc)
	}
}

func TestGeminiSchemaConversion(t *testing.T) {
	got := geminiSchema(json.RawMessage(`{"$schema":"x","type":"object","additionalProperties":false,"properties":{
		"path":{"type":"string","description":"p"},"n":{"type":["integer","null"]},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}},"required":["path"]}`))
	b, _ := json.Marshal(got)
	want := `{"properties":{"n":{"nullable":true,"type":"INTEGER"},"path":{"description":"p","type":"STRING"},"tags":{"items":{"enum":["a","b"],"type":"STRING"},"type":"ARRAY"}},"required":["path"],"type":"OBJECT"}`
	if string(b) != want {
		t.Errorf("schema:\n%s\nwant\n%s", b, want)
	}
	if geminiSchema(json.RawMessage(`{"type":"object","properties":{}}`)) != nil {
		t.Error("an object with no properties must be left out")
	}
}

func TestGeminiErrors(t *testing.T) {
	acc := newGeminiAccumulator("gemini", nil)
	if err := acc.add([]byte(`{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`)); err == nil {
		t.Error("no error")
	} else if pe, _ := provider.AsError(err); !pe.Retryable {
		t.Errorf("503 not retryable: %v", err)
	}
	acc = newGeminiAccumulator("gemini", nil)
	if err := acc.add([]byte(`{"promptFeedback":{"blockReason":"SAFETY"}}`)); err == nil || !strings.Contains(err.Error(), "SAFETY") {
		t.Errorf("blocked prompt: %v", err)
	}
}

// --json-schema on Gemini: a call without tools is the recorded
// object-generation request (responseJsonSchema, responseMimeType); one
// with tools leaves the schema to the prompt, as Gemini 2.5 refuses a
// JSON response type beside function declarations.
func TestGeminiOutputSchema(t *testing.T) {
	for _, model := range []string{"gemini-2.5-flash", "gemini-2.5-pro", "gemini-3-pro-preview"} {
		t.Run(model, func(t *testing.T) {
			c := providertest.LoadCassette(t, "TestGoogleObjectGeneration/"+model+"/simple_object_streaming.yaml")
			var recorded struct {
				Gen struct {
					Schema json.RawMessage `json:"responseJsonSchema"`
				} `json:"generationConfig"`
			}
			if err := json.Unmarshal([]byte(c.Interactions[0].Request.Body), &recorded); err != nil || len(recorded.Gen.Schema) == 0 {
				t.Fatalf("recording: %v", err)
			}
			rs := providertest.NewReplayServer(t, c, nil)
			p := geminiFor(t, rs)
			req := provider.Request{Model: model, MaxTokens: 4000, OutputSchema: recorded.Gen.Schema,
				Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("Generate information about a person named Alice who is 30 years old and lives in Paris.")}}}}
			r, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			providertest.AssertSameJSON(t, model, rs.Body(0), []byte(c.Interactions[0].Request.Body), "thinkingConfig")
			var person struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal([]byte(providertest.TextOf(r)), &person); err != nil || person.Name != "Alice" {
				t.Errorf("answer %q: %v", providertest.TextOf(r), err)
			}
		})
	}
	withTools := geminiBody("gemini", provider.Request{Model: "gemini-2.5-flash", OutputSchema: json.RawMessage(`{"type":"object"}`),
		Tools: []provider.ToolSpec{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}})
	gen, _ := withTools["generationConfig"].(map[string]any)
	if _, ok := gen["responseJsonSchema"]; ok {
		t.Errorf("schema sent natively beside tools: %v", gen)
	}
	if _, ok := gen["responseMimeType"]; ok {
		t.Errorf("JSON response type sent beside tools: %v", gen)
	}
}

// A Gemini stream that stalls fails on the stream timeouts like every
// other adapter's, instead of hanging until the caller gives up.
func TestGeminiStreamWatched(t *testing.T) {
	url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	p, _ := New(provider.Config{Name: "gemini", Kind: provider.KindGemini, BaseURL: url, APIKey: "gk",
		FirstByteTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := p.Stream(ctx, providertest.SimpleRequest("gemini-2.5-flash"), nil)
	if ctx.Err() != nil {
		t.Fatal("hung until the test's deadline")
	}
	if pe, ok := provider.AsError(err); !ok || !pe.Retryable || !strings.Contains(err.Error(), "no response within 300ms") {
		t.Errorf("got %v, want a retryable stall", err)
	}
}
