package scripted

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

func openAIClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

func openAIParams(msgs ...openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	if len(msgs) == 0 {
		msgs = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("fix the bug")}
	}
	return openai.ChatCompletionNewParams{
		Model: "gpt-4o", Messages: msgs,
		Tools:         []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "Read"})},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
}

func streamOpenAI(t *testing.T, c openai.Client, p openai.ChatCompletionNewParams) (openai.ChatCompletionAccumulator, int, error) {
	t.Helper()
	stream := c.Chat.Completions.NewStreaming(context.Background(), p)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	chunks := 0
	for stream.Next() {
		chunks++
		if !acc.AddChunk(stream.Current()) {
			t.Fatalf("accumulator rejected chunk %d: %s", chunks, stream.Current().RawJSON())
		}
	}
	return acc, chunks, stream.Err()
}

func TestOpenAISDKStreamingConversation(t *testing.T) {
	script := Script{Steps: []Step{
		ToolStep(
			Call("Read", map[string]any{"file_path": "/w/calc.py"}),
			Call("Bash", map[string]any{"command": "pytest -q"}),
		).WithUsage(Usage{InputTokens: 90, OutputTokens: 30, CacheReadInputTokens: 10}),
		TextStep("The bug was an off-by-one error; it is fixed now and tests pass."),
	}}
	srv, url := startServer(t, script)
	c := openAIClient(url)
	p := openAIParams()

	acc, chunks, err := streamOpenAI(t, c, p)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	if chunks < 6 {
		t.Errorf("only %d chunks: tool arguments should stream in pieces", chunks)
	}
	choice := acc.Choices[0]
	calls := choice.Message.ToolCalls
	if choice.FinishReason != "tool_calls" || len(calls) != 2 {
		t.Fatalf("choice = %+v", choice)
	}
	if calls[0].Function.Name != "Read" || calls[0].Function.Arguments != `{"file_path":"/w/calc.py"}` ||
		calls[1].Function.Name != "Bash" || calls[1].Function.Arguments != `{"command":"pytest -q"}` {
		t.Errorf("tool calls = %+v", calls)
	}
	if !strings.HasPrefix(calls[0].ID, "call_") || calls[0].ID == calls[1].ID {
		t.Errorf("tool ids %q %q", calls[0].ID, calls[1].ID)
	}
	if acc.Usage.PromptTokens != 100 || acc.Usage.CompletionTokens != 30 || acc.Usage.PromptTokensDetails.CachedTokens != 10 {
		t.Errorf("usage = %+v", acc.Usage)
	}

	p.Messages = append(p.Messages, choice.Message.ToParam(),
		openai.ToolMessage("def add(a, b): return a - b", calls[0].ID),
		openai.ToolMessage("1 failed", calls[1].ID))
	acc2, _, err := streamOpenAI(t, c, p)
	if err != nil {
		t.Fatalf("stream 2: %v", err)
	}
	if got := acc2.Choices[0].Message.Content; got != script.Steps[1].Text || acc2.Choices[0].FinishReason != "stop" {
		t.Errorf("turn 2 = %q (%s)", got, acc2.Choices[0].FinishReason)
	}
	reqs := srv.MainRequests()
	if len(reqs) != 2 || reqs[1].Step != 1 || !strings.Contains(string(reqs[1].RawBody), `"tool_call_id"`) {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestOpenAISDKNonStreaming(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{ToolStep(Call("Read", map[string]any{"file_path": "x"})).WithText("Reading.")}})
	c := openAIClient(url)
	res, err := c.Chat.Completions.New(context.Background(), openAIParams())
	if err != nil {
		t.Fatal(err)
	}
	m := res.Choices[0].Message
	if m.Content != "Reading." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"file_path":"x"}` ||
		res.Choices[0].FinishReason != "tool_calls" || res.Usage.TotalTokens < 2 {
		t.Fatalf("completion = %+v", res)
	}
}

func TestOpenAIRawStreamEndsWithDone(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{ThinkingStep("think", "hello there")}})
	body := openAIBody(true)
	delete(body, "stream_options")
	resp := post(t, url+"/chat/completions", body) // base URL without /v1 works too
	defer resp.Body.Close()
	events, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(events); n < 3 || events[n-1].data != "[DONE]" {
		t.Fatalf("events = %+v", events)
	}
	for _, ev := range events {
		if ev.name != "" {
			t.Errorf("OpenAI events must be data-only, got event: %s", ev.name)
		}
		if strings.Contains(ev.data, `"usage"`) {
			t.Errorf("usage chunk sent without include_usage: %s", ev.data)
		}
	}
	if !strings.Contains(events[1].data, `"reasoning_content":"think"`) {
		t.Errorf("thinking not sent as reasoning_content: %s", events[1].data)
	}
}
