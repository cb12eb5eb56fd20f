package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

// Anthropic's server-side web search, replayed from real recorded traffic:
// the server tool goes out beside the request's tools, and the pages found
// and the passages cited come back as Sources.
func TestAnthropicServerWebSearch(t *testing.T) {
	c := providertest.LoadCassette(t, "TestAnthropicWebSearch/stream.yaml")
	rs := providertest.NewReplayServer(t, c, nil)
	p, err := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: rs.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Stream(context.Background(), provider.Request{
		Model: "claude-sonnet-4-20250514", MaxTokens: 4000,
		Messages:    []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("What is the current population of Tokyo? Cite your source.")}}},
		Tools:       []provider.ToolSpec{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		ServerTools: []json.RawMessage{json.RawMessage(`{"type":"web_search_20250305","name":"web_search","max_uses":3}`)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(rs.Bodies[0], &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Tools) != 2 || body.Tools[0]["name"] != "Read" || body.Tools[1]["type"] != "web_search_20250305" {
		t.Fatalf("tools sent: %+v", body.Tools)
	}
	var text string
	for _, b := range resp.Content {
		if b.Type == message.ToolUse {
			t.Errorf("a server tool call leaked into the content as a client tool_use: %+v", b)
		}
		text += b.Text
	}
	if !strings.Contains(text, "Tokyo") {
		t.Errorf("answer text: %q", text)
	}
	if len(resp.Sources) < 3 {
		t.Fatalf("sources: %+v", resp.Sources)
	}
	cited := 0
	for _, s := range resp.Sources {
		if s.URL == "" || s.Title == "" {
			t.Errorf("incomplete source %+v", s)
		}
		cited += len(s.Cited)
	}
	if cited == 0 {
		t.Error("no cited passages collected")
	}
}

func TestWithServerTools(t *testing.T) {
	cases := []struct{ tools, want string }{
		{"", `[{"x":1}]`},
		{`[]`, `[{"x":1}]`},
		{`[{"a":1}]`, `[{"a":1},{"x":1}]`},
	}
	for _, c := range cases {
		var tools []byte
		if c.tools != "" {
			tools = []byte(c.tools)
		}
		if got := string(withServerTools(tools, []json.RawMessage{json.RawMessage(`{"x":1}`)})); got != c.want {
			t.Errorf("%q: got %s, want %s", c.tools, got, c.want)
		}
	}
	if got := withServerTools([]byte(`[{"a":1}]`), nil); string(got) != `[{"a":1}]` {
		t.Errorf("no server tools: %s", got)
	}
}
