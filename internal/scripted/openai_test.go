package scripted

import (
	"encoding/json"
	"strings"
	"testing"
)

// openAIStreamed is a Chat Completions stream folded the way clients fold
// it: content joined, tool calls assembled by index, the last finish
// reason and usage.
type openAIStreamed struct {
	content string
	calls   []oToolCall
	finish  string
	usage   *oUsage
	chunks  int
}

// streamOpenAI fails on a stream that ends in a broken read.
func streamOpenAI(t *testing.T, url string, body map[string]any) (openAIStreamed, error) {
	t.Helper()
	resp := post(t, url+"/v1/chat/completions", body)
	defer resp.Body.Close()
	events, err := readSSE(resp.Body)
	var out openAIStreamed
	for _, ev := range events {
		if ev.data == "[DONE]" {
			continue
		}
		var c oCompletion
		if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
			t.Fatalf("chunk %s: %v", ev.data, err)
		}
		out.chunks++
		if c.Usage != nil {
			out.usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				out.finish = *ch.FinishReason
			}
			if ch.Delta == nil {
				continue
			}
			if ch.Delta.Content != nil {
				out.content += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := *tc.Index
				for len(out.calls) <= i {
					out.calls = append(out.calls, oToolCall{Function: oFunction{Arguments: ptr("")}})
				}
				call := &out.calls[i]
				if tc.ID != "" {
					call.ID, call.Type = tc.ID, tc.Type
				}
				if tc.Function.Name != "" {
					call.Function.Name = tc.Function.Name
				}
				if tc.Function.Arguments != nil {
					*call.Function.Arguments += *tc.Function.Arguments
				}
			}
		}
	}
	return out, err
}

func TestOpenAIStreamingConversation(t *testing.T) {
	script := Script{Steps: []Step{
		ToolStep(
			Call("Read", map[string]any{"file_path": "/w/calc.py"}),
			Call("Bash", map[string]any{"command": "pytest -q"}),
		).WithUsage(Usage{InputTokens: 90, OutputTokens: 30, CacheReadInputTokens: 10}),
		TextStep("The bug was an off-by-one error; it is fixed now and tests pass."),
	}}
	srv, url := startServer(t, script)
	user := map[string]any{"role": "user", "content": "fix the bug"}
	got, err := streamOpenAI(t, url, openAIBody(true, user))
	if err != nil {
		t.Fatal(err)
	}
	if got.chunks < 6 {
		t.Errorf("only %d chunks: tool arguments should stream in pieces", got.chunks)
	}
	calls := got.calls
	if got.finish != "tool_calls" || len(calls) != 2 {
		t.Fatalf("stream = %+v", got)
	}
	if calls[0].Function.Name != "Read" || *calls[0].Function.Arguments != `{"file_path":"/w/calc.py"}` ||
		calls[1].Function.Name != "Bash" || *calls[1].Function.Arguments != `{"command":"pytest -q"}` {
		t.Errorf("tool calls = %+v", calls)
	}
	if !strings.HasPrefix(calls[0].ID, "call_") || calls[0].ID == calls[1].ID || calls[0].Type != "function" {
		t.Errorf("tool ids %q %q", calls[0].ID, calls[1].ID)
	}
	if u := got.usage; u == nil || u.PromptTokens != 100 || u.CompletionTokens != 30 || u.PromptTokensDetails.CachedTokens != 10 {
		t.Errorf("usage = %+v", u)
	}

	var toolCalls []any
	for _, c := range calls {
		toolCalls = append(toolCalls, map[string]any{"id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Function.Name, "arguments": *c.Function.Arguments}})
	}
	got2, err := streamOpenAI(t, url, openAIBody(true, user,
		map[string]any{"role": "assistant", "content": nil, "tool_calls": toolCalls},
		map[string]any{"role": "tool", "tool_call_id": calls[0].ID, "content": "def add(a, b): return a - b"},
		map[string]any{"role": "tool", "tool_call_id": calls[1].ID, "content": "1 failed"}))
	if err != nil {
		t.Fatal(err)
	}
	if got2.content != script.Steps[1].Text || got2.finish != "stop" {
		t.Errorf("turn 2 = %q (%s)", got2.content, got2.finish)
	}
	reqs := srv.MainRequests()
	if len(reqs) != 2 || reqs[1].Step != 1 || !strings.Contains(string(reqs[1].RawBody), `"tool_call_id"`) {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestOpenAINonStreaming(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{ToolStep(Call("Read", map[string]any{"file_path": "x"})).WithText("Reading.")}})
	resp := post(t, url+"/v1/chat/completions", openAIBody(false))
	defer resp.Body.Close()
	var res oCompletion
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatal(err)
	}
	m := res.Choices[0].Message
	if m == nil || m.Content == nil || *m.Content != "Reading." || len(m.ToolCalls) != 1 || *m.ToolCalls[0].Function.Arguments != `{"file_path":"x"}` ||
		*res.Choices[0].FinishReason != "tool_calls" || res.Usage == nil || res.Usage.TotalTokens < 2 || res.Object != "chat.completion" {
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
