package scripted

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

func anthropicClient(url string, opts ...option.RequestOption) anthropic.Client {
	base := []option.RequestOption{
		option.WithoutEnvironmentDefaults(), option.WithBaseURL(url),
		option.WithAPIKey("test-key"), option.WithMaxRetries(0),
	}
	return anthropic.NewClient(append(base, opts...)...)
}

func anthropicParams(msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	if len(msgs) == 0 {
		msgs = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("fix the bug"))}
	}
	return anthropic.MessageNewParams{
		Model: "claude-sonnet-4-5", MaxTokens: 1024, Messages: msgs,
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        "Read",
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"file_path": map[string]any{"type": "string"}}},
		}}},
	}
}

func streamAnthropic(t *testing.T, c anthropic.Client, p anthropic.MessageNewParams) (anthropic.Message, error) {
	t.Helper()
	stream := c.Messages.NewStreaming(context.Background(), p)
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatalf("accumulate: %v", err)
		}
	}
	return msg, stream.Err()
}

func TestAnthropicSDKStreamingConversation(t *testing.T) {
	long := "I'll look at the failing test first, then read the source file to understand the bug — ünïcödé included."
	script := Script{Steps: []Step{
		ThinkingStep("The user wants a fix. I should read calc.py and run the tests.", long).
			WithUsage(Usage{InputTokens: 120, OutputTokens: 40, CacheReadInputTokens: 1000, CacheCreationInputTokens: 50}),
	}}
	script.Steps[0].ToolCalls = []ToolCall{
		Call("Read", map[string]any{"file_path": "/w/calc.py"}),
		Call("Bash", map[string]any{"command": "go test ./...", "description": "run tests"}),
	}
	script.Steps = append(script.Steps, TextStep("All fixed."))
	srv, url := startServer(t, script)
	c := anthropicClient(url)

	p := anthropicParams()
	msg, err := streamAnthropic(t, c, p)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	var types []string
	for _, b := range msg.Content {
		types = append(types, b.Type)
	}
	if got := strings.Join(types, ","); got != "thinking,text,tool_use,tool_use" {
		t.Fatalf("content types = %s", got)
	}
	if msg.Content[0].Signature != Signature(script.Steps[0].Thinking) || msg.Content[0].Thinking != script.Steps[0].Thinking {
		t.Errorf("thinking block = %+v", msg.Content[0])
	}
	if msg.Content[1].Text != long {
		t.Errorf("text = %q", msg.Content[1].Text)
	}
	ids := map[string]bool{}
	for i, want := range []string{`{"file_path":"/w/calc.py"}`, `{"command":"go test ./...","description":"run tests"}`} {
		b := msg.Content[2+i]
		if !strings.HasPrefix(b.ID, "toolu_01") || ids[b.ID] {
			t.Errorf("tool id %q not unique toolu_01...", b.ID)
		}
		ids[b.ID] = true
		if string(b.Input) != want {
			t.Errorf("tool input = %s, want %s", b.Input, want)
		}
	}
	if msg.StopReason != "tool_use" {
		t.Errorf("stop_reason = %q", msg.StopReason)
	}
	u := msg.Usage
	if u.InputTokens != 120 || u.OutputTokens != 40 || u.CacheReadInputTokens != 1000 || u.CacheCreationInputTokens != 50 {
		t.Errorf("usage = %+v", u)
	}

	// Second turn: the SDK sends back the assistant message and tool results.
	p.Messages = append(p.Messages, msg.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock(msg.Content[2].ID, "def add(a, b): return a - b", false),
		anthropic.NewToolResultBlock(msg.Content[3].ID, "FAIL", true),
	))
	msg2, err := streamAnthropic(t, c, p)
	if err != nil {
		t.Fatalf("stream 2: %v", err)
	}
	if len(msg2.Content) != 1 || msg2.Content[0].Text != "All fixed." || msg2.StopReason != "end_turn" {
		t.Fatalf("turn 2 = %+v", msg2)
	}

	reqs := srv.MainRequests()
	if len(reqs) != 2 || reqs[0].Step != 0 || reqs[1].Step != 1 {
		t.Fatalf("requests = %+v", reqs)
	}
	// The client must have returned the signature and the tool results.
	raw := string(reqs[1].RawBody)
	if !strings.Contains(raw, Signature(script.Steps[0].Thinking)) || !strings.Contains(raw, `"tool_result"`) {
		t.Errorf("second request lacks signature or tool results: %s", raw)
	}
	if reqs[1].Header.Get("x-api-key") != "test-key" && reqs[1].Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("x-api-key header not recorded: %v", reqs[1].Header)
	}
}

func TestAnthropicSDKNonStreaming(t *testing.T) {
	script := Script{Steps: []Step{ToolStep(CallID("toolu_fixed", "Read", map[string]any{"file_path": "a"})).WithText("Reading.").WithThinking("hmm")}}
	_, url := startServer(t, script)
	c := anthropicClient(url)
	msg, err := c.Messages.New(context.Background(), anthropicParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 || msg.Content[0].Signature != Signature("hmm") || msg.Content[1].Text != "Reading." ||
		msg.Content[2].ID != "toolu_fixed" || string(msg.Content[2].Input) != `{"file_path":"a"}` {
		t.Fatalf("message = %+v", msg.Content)
	}
	if msg.StopReason != "tool_use" || msg.Usage.InputTokens < 1 || msg.Usage.OutputTokens < 1 || !strings.HasPrefix(msg.ID, "msg_01") {
		t.Errorf("message meta = %+v", msg)
	}
}

func TestAnthropicSDKCountTokens(t *testing.T) {
	srv, url := startServer(t, Script{})
	c := anthropicClient(url)
	res, err := c.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
		Model:    "claude-sonnet-4-5",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(strings.Repeat("word ", 100)))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.InputTokens < 100 {
		t.Errorf("input_tokens = %d", res.InputTokens)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].API != APICountTokens || reqs[0].Step != -1 {
		t.Errorf("requests = %+v", reqs)
	}
}

// TestAnthropicRawEventSequence checks the exact SSE framing against the
// order recorded from the real API.
func TestAnthropicRawEventSequence(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{
		ToolStep(Call("Read", map[string]any{"file_path": "/a/long/path/to/file.go"})).WithText("Let me read that file for you now."),
	}})
	resp := post(t, url+"/v1/messages?beta=true", anthropicBody(true))
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
		t.Errorf("content-type = %q", ct)
	}
	events, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	textDeltas, jsonDeltas := 0, 0
	for _, ev := range events {
		var typ struct {
			Type  string `json:"type"`
			Delta struct {
				Type string `json:"type"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(ev.data), &typ); err != nil || typ.Type != ev.name {
			t.Fatalf("event %q data %s: type mismatch (%v)", ev.name, ev.data, err)
		}
		if ev.name == "content_block_delta" {
			switch typ.Delta.Type {
			case "text_delta":
				textDeltas++
			case "input_json_delta":
				jsonDeltas++
			}
			if len(names) > 0 && names[len(names)-1] == "content_block_delta" {
				continue
			}
		}
		names = append(names, ev.name)
	}
	want := "message_start,content_block_start,ping,content_block_delta,content_block_stop,content_block_start,content_block_delta,content_block_stop,message_delta,message_stop"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if textDeltas < 2 || jsonDeltas < 3 {
		t.Errorf("text deltas %d, json deltas %d: want several", textDeltas, jsonDeltas)
	}
}
