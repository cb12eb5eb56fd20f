package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
	"github.com/tandem-agent/tandem/internal/provider/vertex/vertextest"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// toolScript: thinking and a tool call, then the answer.
func toolScript() scripted.Script {
	first := scripted.ThinkingStep("I should read the file.", "Reading it.").
		WithUsage(scripted.Usage{InputTokens: 1200, OutputTokens: 80, CacheReadInputTokens: 3000})
	first.ToolCalls = []scripted.ToolCall{scripted.Call("Read", map[string]any{"file_path": "/w/a.go"})}
	return scripted.Script{Steps: []scripted.Step{first, scripted.TextStep("The file is fine.")}}
}

// twoSteps runs the script's conversation through p: stream the tool call
// (with thinking), answer it, stream the final text.
func twoSteps(t *testing.T, p provider.Provider, model string) (first, second *provider.Response, deltas []provider.Delta) {
	t.Helper()
	req := provider.Request{Model: model, MaxTokens: 4096, ThinkingBudget: 2048,
		Tools:    []provider.ToolSpec{{Name: "Read", Description: "read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)}},
		Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("check a.go")}}}}
	first, err := p.Stream(context.Background(), req, func(d provider.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	uses := message.Message{Content: first.Content}.ToolUses()
	if first.StopReason != "tool_use" || len(uses) != 1 || uses[0].Name != "Read" {
		t.Fatalf("first step: %+v", first)
	}
	req.Messages = append(req.Messages, message.Message{Role: message.Assistant, Content: first.Content},
		message.Message{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: uses[0].ID, Content: []message.Block{message.TextBlock("package a")}}}})
	second, err = p.Stream(context.Background(), req, func(d provider.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if second.StopReason != "end_turn" || strings.TrimSpace(message.Message{Content: second.Content}.PlainText()) != "The file is fine." {
		t.Fatalf("second step: %+v", second)
	}
	return first, second, deltas
}

// checkThinkingKept: the second request carries the first step's thinking
// block with its signature, before the tool call.
func checkThinkingKept(t *testing.T, srv *scripted.Server, first *provider.Response) {
	t.Helper()
	var sig string
	for _, b := range first.Content {
		if b.Type == message.Thinking {
			sig = b.Signature
		}
	}
	reqs := srv.MainRequests()
	if sig == "" || len(reqs) != 2 || !strings.Contains(string(reqs[1].RawBody), `"signature":"`+sig+`"`) {
		t.Errorf("thinking not kept across steps (signature %q): %s", sig, reqs[len(reqs)-1].RawBody)
	}
}

// Claude on Bedrock against the scripted server speaking Bedrock's event
// stream: streamed text and thinking, a tool round trip over two steps,
// thinking kept, usage and the catalog's cost the same as Anthropic's.
func TestBedrockScripted(t *testing.T) {
	srv, url := testfiles.Scripted(t, withKey(toolScript(), "ABSK-key"))
	p, err := New(provider.Config{Name: "bedrock", Kind: provider.KindBedrock, BaseURL: url, APIKey: "ABSK-key", Cloud: provider.Cloud{Region: "us-east-1"}})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := catalog.Load()
	res, _ := cat.Resolve("bedrock/claude-sonnet-4-5")
	first, _, deltas := twoSteps(t, p, res.Model)
	checkThinkingKept(t, srv, first)
	var kinds = map[provider.DeltaKind]int{}
	for _, d := range deltas {
		kinds[d.Kind]++
	}
	if kinds[provider.DeltaText] == 0 || kinds[provider.DeltaThinking] == 0 || kinds[provider.DeltaToolStart] != 1 {
		t.Errorf("deltas by kind: %v", kinds)
	}
	if u := first.Usage; u.InputTokens != 1200 || u.OutputTokens != 80 || u.CacheReadTokens != 3000 {
		t.Errorf("usage %+v", u)
	}
	own, _ := cat.Resolve("anthropic/claude-sonnet-4-5") // the same model: the same prices
	got, want := catalog.Cost(res.Info, first.Usage), catalog.Cost(own.Info, first.Usage)
	if got == nil || want == nil || *got != *want || *got == 0 {
		t.Errorf("cost %v, Anthropic's %v", got, want)
	}
	reqs := srv.MainRequests()
	if reqs[0].Model() != "us.anthropic.claude-sonnet-4-5-20250929-v1:0" || !strings.HasSuffix(reqs[0].Path, "/invoke-with-response-stream") {
		t.Errorf("request: %s %s", reqs[0].Path, reqs[0].Model())
	}
}

func withKey(s scripted.Script, key string) scripted.Script { s.RequireKey = key; return s }

// Bedrock's failures come back classified as the loop needs them:
// throttling is retryable with its Retry-After, a mid-stream exception is
// retryable, a refused key is an auth error.
func TestBedrockScriptedErrors(t *testing.T) {
	cases := []struct {
		name      string
		fault     *scripted.Fault
		key       string
		retryable bool
		auth      bool
		after     time.Duration
	}{
		{"throttled", &scripted.Fault{Status: http.StatusTooManyRequests, RetryAfter: "3"}, "k", true, false, 3 * time.Second},
		{"unavailable", &scripted.Fault{Status: http.StatusServiceUnavailable}, "k", true, false, 0},
		{"mid-stream exception", &scripted.Fault{MidStreamError: true}, "k", true, false, 0},
		{"refused key", nil, "wrong", false, true, 0},
		{"bad request", &scripted.Fault{Status: http.StatusBadRequest}, "k", false, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			step := scripted.TextStep("a reply long enough to be cut")
			step.Fault = c.fault
			_, url := testfiles.Scripted(t, scripted.Script{RequireKey: "k", Steps: []scripted.Step{step}})
			p, _ := New(provider.Config{Name: "bedrock", Kind: provider.KindBedrock, BaseURL: url, APIKey: c.key, Cloud: provider.Cloud{Region: "us-east-1"}})
			_, err := p.Stream(context.Background(), provider.Request{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", MaxTokens: 100,
				Tools:    []provider.ToolSpec{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}},
				Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("hi")}}}}, nil)
			pe, ok := provider.AsError(err)
			if !ok || pe.Retryable != c.retryable || pe.Auth != c.auth || pe.RetryAfter != c.after || pe.Provider != "bedrock" {
				t.Fatalf("err %v: %+v", err, pe)
			}
		})
	}
}

// Claude on Vertex against the scripted server, with a service-account
// key and a local token endpoint.
func TestVertexScripted(t *testing.T) {
	srv, url := testfiles.Scripted(t, toolScript())
	ts := vertextest.NewTokenServer(t)
	p, err := New(provider.Config{Name: "vertex", Kind: provider.KindVertex, BaseURL: url,
		Cloud: provider.Cloud{Region: "us-east5", CredentialsFile: ts.File}})
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := twoSteps(t, p, "claude-sonnet-4-5@20250929")
	checkThinkingKept(t, srv, first)
	reqs := srv.MainRequests()
	want := "/v1/projects/" + vertextest.Project + "/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"
	if reqs[0].Path != want || reqs[0].Header.Get("Authorization") != "Bearer "+vertextest.Token(1) || reqs[0].Body["anthropic_version"] != "vertex-2023-10-16" {
		t.Errorf("request: %s %v", reqs[0].Path, reqs[0].Header)
	}
}

// `tandem doctor`'s probe makes one real one-token call per cloud
// provider; credentials that cannot be found fail it as unauthenticated.
func TestCloudProbes(t *testing.T) {
	srv, url := testfiles.Scripted(t, scripted.Script{RequireKey: "ABSK-key"})
	p := ProbeProvider(context.Background(), provider.Config{Name: "bedrock", Kind: provider.KindBedrock, BaseURL: url, APIKey: "ABSK-key", Cloud: provider.Cloud{Region: "us-east-1"}}, "")
	if !p.OK || p.Method != "call" || p.Model == "" || p.ModelAvailable == nil || !*p.ModelAvailable {
		t.Errorf("bedrock: %+v", p)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].Path, "/model/") {
		t.Errorf("requests: %+v", reqs)
	}
	p = ProbeProvider(context.Background(), provider.Config{Name: "vertex", Kind: provider.KindVertex, BaseURL: url,
		Cloud: provider.Cloud{Project: "p", CredentialsFile: t.TempDir() + "/missing.json"}}, "")
	if p.OK || p.Authenticated || !strings.Contains(p.Error, "credentials_file") || p.Model != "gemini-2.5-flash" {
		t.Errorf("vertex without credentials: %+v", p)
	}
}
