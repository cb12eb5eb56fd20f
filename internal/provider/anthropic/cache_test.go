package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

func TestAnthropicCommonWithCacheControl(t *testing.T) {
	// The recording was made under the cache minimum, so it reports zero
	// cache tokens; the counts are raised in the served stream to check
	// that both kinds reach Usage.
	withCache := func(body string) (string, string) {
		body = strings.ReplaceAll(body, `"cache_read_input_tokens":0`, `"cache_read_input_tokens":1500`)
		body = strings.ReplaceAll(body, `"cache_creation_input_tokens":0`, `"cache_creation_input_tokens":300`)
		return body, ""
	}
	run := providertest.Replay(t, New, "TestAnthropicCommonWithCacheControl/claude-sonnet-4/tool_streaming.yaml",
		provider.KindAnthropic, "anthropic", providertest.ReplayOpts{Transform: withCache, Drop: []string{"stream", "cache_control"}})
	for i, r := range run.Responses {
		if r.Usage.CacheReadTokens != 1500 || r.Usage.CacheCreationTokens != 300 || r.Usage.InputTokens == 0 {
			t.Errorf("call %d usage: %+v", i, r.Usage)
		}
	}
	for i := range run.Responses {
		assertBreakpoints(t, run.Server.Body(i))
	}
}

// assertBreakpoints checks cache_control on the last system block, the last
// tool and the last block of the last message, and nowhere else.
func assertBreakpoints(t *testing.T, body []byte) {
	t.Helper()
	var req struct {
		System   []map[string]any `json:"system"`
		Tools    []map[string]any `json:"tools"`
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	marked := func(m map[string]any) bool {
		cc, ok := m["cache_control"].(map[string]any)
		return ok && cc["type"] == "ephemeral"
	}
	count := strings.Count(string(body), `"cache_control"`)
	if count != 3 {
		t.Errorf("want 3 cache breakpoints, got %d in %s", count, body)
	}
	if !marked(req.System[len(req.System)-1]) {
		t.Errorf("last system block not marked: %v", req.System)
	}
	if len(req.Tools) > 0 && !marked(req.Tools[len(req.Tools)-1]) {
		t.Errorf("last tool not marked: %v", req.Tools)
	}
	last := req.Messages[len(req.Messages)-1].Content
	if !marked(last[len(last)-1]) {
		t.Errorf("last message block not marked: %v", last)
	}
}

func TestAnthropicRequestShape(t *testing.T) {
	var h http.Header
	var body []byte
	url := providertest.OKAnthropic(t, &h, &body)
	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
	img := "iVBORw0KGgo="
	req := provider.Request{
		Model: "claude-x", MaxTokens: 1000, ThinkingBudget: 2000, Effort: "high",
		System: []string{"one", "two"},
		Tools: []provider.ToolSpec{
			{Name: "read", Description: "r", InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"#/$defs/path"}},"required":["p"],"$defs":{"path":{"type":"string"}}}`)},
			{Name: "shot", Description: "s"},
		},
		Messages: []message.Message{
			{ID: "1", Role: message.User, Content: []message.Block{message.TextBlock("look")}},
			{ID: "2", Role: message.Assistant, Content: []message.Block{
				{Type: message.Thinking, Text: "mine", Signature: "sig-a", Provider: "anthropic"},
				{Type: message.Thinking, Text: "foreign", Signature: "sig-b", Provider: "openai"},
				{Type: message.RedactedThinking, Data: "opaque", Provider: "anthropic"},
				message.TextBlock("taking a shot"),
				{Type: message.ToolUse, ID: "t1", Name: "shot", Input: json.RawMessage(`{}`)},
			}},
			{ID: "3", Role: message.User, Content: []message.Block{
				{Type: message.ToolResult, ToolUseID: "t1", Content: []message.Block{
					message.TextBlock("screen"),
					{Type: message.Image, MediaType: "image/png", ImageData: img},
				}},
			}},
		},
	}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	s := string(body)
	for _, want := range []string{
		`"signature":"sig-a"`, `"data":"opaque"`, `"$defs"`, `"budget_tokens":2000`,
		`"output_config":{"effort":"high"}`, `"media_type":"image/png"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("body lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, "sig-b") || strings.Contains(s, "foreign") {
		t.Errorf("thinking from another provider was sent:\n%s", s)
	}
	var parsed struct {
		MaxTokens int64 `json:"max_tokens"`
	}
	_ = json.Unmarshal(body, &parsed)
	if parsed.MaxTokens <= 2000 {
		t.Errorf("max_tokens %d must exceed the thinking budget", parsed.MaxTokens)
	}
	assertBreakpoints(t, body)
}
