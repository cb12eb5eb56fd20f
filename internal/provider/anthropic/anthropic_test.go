package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

const anthropicDir = "TestAnthropicCommon/claude-sonnet-4/"

func TestAnthropicCommon(t *testing.T) {
	t.Run("simple_streaming", func(t *testing.T) {
		run := providertest.Replay(t, New, anthropicDir+"simple_streaming.yaml", provider.KindAnthropic, "anthropic", providertest.ReplayOpts{Transform: nil, Drop: []string{"stream", "cache_control"}})
		r := run.Responses[0]
		if providertest.TextOf(r) == "" || r.StopReason != "end_turn" {
			t.Fatalf("response: %+v", r)
		}
		if got := providertest.DeltaString(run.Deltas[0], provider.DeltaText); got != providertest.TextOf(r) {
			t.Errorf("deltas %q != text %q", got, providertest.TextOf(r))
		}
		if r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
			t.Errorf("usage not set: %+v", r.Usage)
		}
		if r.Model != "claude-sonnet-4-20250514" {
			t.Errorf("model = %q", r.Model)
		}
	})
	t.Run("tool_streaming", func(t *testing.T) {
		run := providertest.Replay(t, New, anthropicDir+"tool_streaming.yaml", provider.KindAnthropic, "anthropic", providertest.ReplayOpts{Transform: nil, Drop: []string{"stream", "cache_control"}})
		r := run.Responses[0]
		if r.StopReason != "tool_use" {
			t.Errorf("stop reason %q", r.StopReason)
		}
		uses := message.Message{Content: r.Content}.ToolUses()
		if len(uses) != 1 || uses[0].Name != "weather" || uses[0].ID != "toolu_01N2eM4V43kGCDkq2Lw7ChWQ" {
			t.Fatalf("tool uses: %+v", uses)
		}
		var in struct{ Location string }
		if err := json.Unmarshal(uses[0].Input, &in); err != nil || in.Location != "Florence,Italy" {
			t.Errorf("input %s: %v", uses[0].Input, err)
		}
		if r.Content[0].Type != message.Text || r.Content[1].Type != message.ToolUse {
			t.Errorf("block order: %+v", r.Content)
		}
		var started bool
		for _, d := range run.Deltas[0] {
			if d.Kind == provider.DeltaToolStart && d.ToolName == "weather" && d.ToolID == uses[0].ID {
				started = true
			}
		}
		if !started {
			t.Error("no provider.DeltaToolStart for the weather call")
		}
		if r2 := run.Responses[1]; r2.StopReason != "end_turn" || providertest.TextOf(r2) == "" {
			t.Errorf("second response: %+v", r2)
		}
	})
	t.Run("multi_tool_streaming", func(t *testing.T) {
		run := providertest.Replay(t, New, anthropicDir+"multi_tool_streaming.yaml", provider.KindAnthropic, "anthropic", providertest.ReplayOpts{Transform: nil, Drop: []string{"stream", "cache_control"}})
		uses := message.Message{Content: run.Responses[0].Content}.ToolUses()
		if len(uses) != 2 || uses[0].Name != "add" || uses[1].Name != "multiply" {
			t.Fatalf("want parallel add and multiply, got %+v", uses)
		}
		if len(run.Responses) != 2 || providertest.TextOf(run.Responses[1]) == "" {
			t.Errorf("second response missing")
		}
	})
}

// TestAnthropicCommonWhole replays the non-streaming recordings: same
// requests (less "stream"), the recorded messages re-framed as streams.
func TestAnthropicCommonWhole(t *testing.T) {
	for _, name := range []string{"simple", "tool", "multi_tool"} {
		t.Run(name, func(t *testing.T) {
			run := providertest.Replay(t, New, anthropicDir+name+".yaml", provider.KindAnthropic, "anthropic", providertest.ReplayOpts{Transform: providertest.AnthropicJSONToSSE, Drop: []string{"stream", "cache_control"}})
			last := run.Responses[len(run.Responses)-1]
			if providertest.TextOf(last) == "" || last.StopReason != "end_turn" {
				t.Errorf("final response: %+v", last)
			}
			if name != "simple" && len(message.Message{Content: run.Responses[0].Content}.ToolUses()) == 0 {
				t.Errorf("no tool use in first response")
			}
		})
	}
}

func TestAnthropicThinking(t *testing.T) {
	for _, name := range []string{"thinking-streaming", "thinking"} {
		t.Run(name, func(t *testing.T) {
			var transform func(string) (string, string)
			if name == "thinking" {
				transform = providertest.AnthropicJSONToSSE
			}
			run := providertest.Replay(t, New, "TestAnthropicThinking/claude-sonnet-4/"+name+".yaml", provider.KindAnthropic, "anthropic", providertest.ReplayOpts{Transform: transform, Drop: []string{"stream", "cache_control"}})
			r := run.Responses[0]
			if r.Content[0].Type != message.Thinking {
				t.Fatalf("first block is %s, want thinking", r.Content[0].Type)
			}
			th := r.Content[0]
			if th.Signature == "" || th.Text == "" || th.Provider != "anthropic" {
				t.Errorf("thinking block: %+v", th)
			}
			if got := providertest.DeltaString(run.Deltas[0], provider.DeltaThinking); got != th.Text {
				t.Errorf("thinking deltas %q != %q", got, th.Text)
			}
			// The recorded follow-up carries the signature; replay compared
			// the whole body, so check the field explicitly too.
			var sent struct {
				Messages []struct {
					Content []map[string]any `json:"content"`
				} `json:"messages"`
				Thinking map[string]any `json:"thinking"`
			}
			if err := json.Unmarshal(run.Server.Body(1), &sent); err != nil {
				t.Fatal(err)
			}
			blk := sent.Messages[1].Content[0]
			if blk["type"] != "thinking" || blk["signature"] != th.Signature || blk["thinking"] != th.Text {
				t.Errorf("second request assistant block: %v", blk)
			}
			if sent.Thinking["type"] != "enabled" || sent.Thinking["budget_tokens"] != float64(4000) {
				t.Errorf("thinking config: %v", sent.Thinking)
			}
		})
	}
}
