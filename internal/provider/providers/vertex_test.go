package providers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
	"github.com/tandem-agent/tandem/internal/provider/vertex/vertextest"
)

// The recordings' project and location.
const (
	recordedProject  = "fantasy-playground-472418"
	recordedLocation = "us-east5"
)

// vertexFor builds the vertex provider against a replay server, with a
// service-account key whose token endpoint is local: the real OAuth flow
// runs, no network.
func vertexFor(t *testing.T, rs *providertest.ReplayServer) (provider.Provider, *vertextest.TokenServer) {
	t.Helper()
	ts := vertextest.NewTokenServer(t)
	p, err := New(provider.Config{Name: "vertex", Kind: provider.KindVertex, BaseURL: rs.URL,
		Cloud: provider.Cloud{Project: recordedProject, Region: recordedLocation, CredentialsFile: ts.File}})
	if err != nil {
		t.Fatal(err)
	}
	return p, ts
}

func checkVertexCalls(t *testing.T, rs *providertest.ReplayServer, ts *vertextest.TokenServer, publisher, model, op string) {
	t.Helper()
	want := "/v1/projects/" + recordedProject + "/locations/" + recordedLocation + "/publishers/" + publisher + "/models/" + model + ":" + op
	for i, path := range rs.Paths {
		if path != want {
			t.Errorf("call %d path %s, want %s", i, path, want)
		}
		if got := rs.Headers[i].Get("Authorization"); got != "Bearer "+vertextest.Token(1) {
			t.Errorf("call %d authorization %q", i, got)
		}
	}
	if ts.Issued() != 1 || len(ts.Problems()) > 0 {
		t.Errorf("tokens issued %d (want 1, cached), refused %v", ts.Issued(), ts.Problems())
	}
}

// Real Vertex traffic for Claude: the bodies match the recorded ones (model
// in the path, vertex-2023-10-16 in the body), tools round-trip.
func TestGoogleVertexClaude(t *testing.T) {
	for _, name := range []string{"simple_streaming", "tool_streaming"} {
		t.Run(name, func(t *testing.T) {
			var ts *vertextest.TokenServer
			run := providertest.Replay(t, New, "TestGoogleCommon/vertex-claude-3-7-sonnet/"+name+".yaml", provider.KindVertex, "vertex",
				providertest.ReplayOpts{
					Drop: []string{"stream", "cache_control"}, Model: "claude-3-7-sonnet@20250219",
					Configure: func(cfg *provider.Config) {
						ts = vertextest.NewTokenServer(t)
						cfg.APIKey = ""
						cfg.Cloud = provider.Cloud{Project: recordedProject, Region: recordedLocation, CredentialsFile: ts.File}
					},
				})
			checkVertexCalls(t, run.Server, ts, "anthropic", "claude-3-7-sonnet@20250219", "streamRawPredict")
			last := run.Responses[len(run.Responses)-1]
			if last.StopReason != "end_turn" || providertest.TextOf(last) == "" || last.Usage.OutputTokens == 0 {
				t.Errorf("last response: %+v", last)
			}
			if name == "tool_streaming" && (run.Responses[0].StopReason != "tool_use" || !strings.Contains(providertest.TextOf(last), "40")) {
				t.Errorf("tool round trip: %+v / %q", run.Responses[0], providertest.TextOf(last))
			}
		})
	}
}

// Real Vertex traffic for Gemini: the Gemini adapter's body goes to the
// project's publisher path with a Google access token; the function call
// round-trips.
func TestGoogleVertexGemini(t *testing.T) {
	for _, model := range []string{"gemini-2.5-flash", "gemini-2.5-pro"} {
		t.Run(model, func(t *testing.T) {
			rs := providertest.NewReplayServer(t, providertest.LoadCassette(t, "TestGoogleCommon/vertex-"+strings.ReplaceAll(model, ".", "-")+"/tool_streaming.yaml"), nil)
			p, ts := vertexFor(t, rs)
			req := provider.Request{Model: model, System: []string{"You are a helpful assistant"}, Tools: []provider.ToolSpec{providertest.WeatherTool}, MaxTokens: 4000,
				Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("What's the weather in Florence,Italy?")}}}}
			r1, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			uses := message.Message{Content: r1.Content}.ToolUses()
			if r1.StopReason != "tool_use" || len(uses) != 1 || uses[0].Name != "weather" || r1.Usage.InputTokens == 0 {
				t.Fatalf("first step: %+v", r1)
			}
			req.Messages = append(req.Messages, message.Message{Role: message.Assistant, Content: r1.Content},
				message.Message{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: uses[0].ID, Content: []message.Block{message.TextBlock("40 C")}}}})
			r2, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r2.StopReason != "end_turn" || !strings.Contains(providertest.TextOf(r2), "40") {
				t.Errorf("second step: %+v", r2)
			}
			sent := string(rs.Body(1))
			if !strings.Contains(sent, `"functionResponse":{`) || strings.Contains(sent, `"model":`) {
				t.Errorf("second request: %s", sent)
			}
			// Thinking is kept across steps: the call's thought signature
			// goes back with it.
			if uses[0].Signature == "" || !strings.Contains(sent, `"thoughtSignature":"`+uses[0].Signature+`"`) {
				t.Errorf("thought signature not sent back (%q)", uses[0].Signature)
			}
			checkVertexCalls(t, rs, ts, "google", model, "streamGenerateContent")
		})
	}
}

// The recorded object-generation streams (a forced tool call for Claude,
// JSON text for Gemini) are read through the vertex provider.
func TestGoogleVertexObjectGeneration(t *testing.T) {
	person := provider.ToolSpec{Name: "Person", Description: "a person", InputSchema: json.RawMessage(`{"type":"object"}`)}
	for _, c := range []struct{ dir, model string }{
		{"vertex-claude-3-7-sonnet", "claude-3-7-sonnet@20250219"},
		{"vertex-gemini-2-5-flash", "gemini-2.5-flash"},
		{"vertex-gemini-2-5-pro", "gemini-2.5-pro"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			rs := providertest.NewReplayServer(t, providertest.LoadCassette(t, "TestGoogleVertexObjectGeneration/"+c.dir+"/simple_object_streaming.yaml"), nil)
			p, ts := vertexFor(t, rs)
			req := provider.Request{Model: c.model, MaxTokens: 4000, OutputSchema: json.RawMessage(`{"type":"object"}`),
				Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("Generate information about a person named Alice who is 30 years old and lives in Paris.")}}}}
			if strings.HasPrefix(c.model, "claude") {
				req.Tools = []provider.ToolSpec{person}
			}
			r, err := p.Stream(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			var object string
			if uses := (message.Message{Content: r.Content}).ToolUses(); len(uses) == 1 {
				object = string(uses[0].Input)
			} else {
				object = providertest.TextOf(r)
			}
			var v struct {
				Name string `json:"name"`
				Age  int    `json:"age"`
			}
			if err := json.Unmarshal([]byte(object), &v); err != nil || v.Name != "Alice" || v.Age != 30 {
				t.Errorf("object %q: %v", object, err)
			}
			publisher, op := "google", "streamGenerateContent"
			if strings.HasPrefix(c.model, "claude") {
				publisher, op = "anthropic", "streamRawPredict"
			}
			checkVertexCalls(t, rs, ts, publisher, c.model, op)
		})
	}
}
