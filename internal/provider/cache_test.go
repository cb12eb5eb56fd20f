package provider

import (
	"encoding/json"
	"strings"
	"testing"
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
	run := replay(t, "TestAnthropicCommonWithCacheControl/claude-sonnet-4/tool_streaming.yaml",
		KindAnthropic, "anthropic", replayOpts{transform: withCache, drop: []string{"stream", "cache_control"}})
	for i, r := range run.responses {
		if r.Usage.CacheReadTokens != 1500 || r.Usage.CacheCreationTokens != 300 || r.Usage.InputTokens == 0 {
			t.Errorf("call %d usage: %+v", i, r.Usage)
		}
	}
	for i := range run.responses {
		assertBreakpoints(t, run.server.body(i))
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
