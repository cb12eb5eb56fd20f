package anthropic

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// BenchmarkAnthropicParams builds the request of a late step of a session:
// 20 tools, 30 tool round trips. Tools come from the cache after the first.
func BenchmarkAnthropicParams(b *testing.B) {
	a := newAnthropicAdapter(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, APIKey: "k"})
	req := provider.Request{Model: "claude-sonnet-4-5", System: []string{"system prompt"}, MaxTokens: 8000}
	for i := range 20 {
		req.Tools = append(req.Tools, provider.ToolSpec{Name: fmt.Sprintf("tool%d", i), Description: "does things",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file"},"n":{"type":"integer"}},"required":["path"],"$defs":{"x":{"type":"string"}}}`)})
	}
	req.Messages = []message.Message{{ID: "u", Role: message.User, Content: []message.Block{message.TextBlock("do it")}}}
	for i := range 30 {
		id := fmt.Sprintf("t%d", i)
		req.Messages = append(req.Messages,
			message.Message{ID: "a" + id, Role: message.Assistant, Content: []message.Block{message.TextBlock("step"),
				{Type: message.ToolUse, ID: id, Name: "tool1", Input: json.RawMessage(`{"path":"a.go"}`)}}},
			message.Message{ID: "r" + id, Role: message.User, Content: []message.Block{
				{Type: message.ToolResult, ToolUseID: id, Content: []message.Block{message.TextBlock("output line\nmore output")}}}})
	}
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.params(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("build+encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := a.params(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkToolConversionUncached(b *testing.B) {
	var specs []provider.ToolSpec
	for i := range 20 {
		specs = append(specs, provider.ToolSpec{Name: fmt.Sprintf("tool%d", i), Description: "does things",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file"},"n":{"type":"integer"}},"required":["path"],"$defs":{"x":{"type":"string"}}}`)})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := anthropicTools(specs); err != nil {
			b.Fatal(err)
		}
	}
}
