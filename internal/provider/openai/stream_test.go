package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

// sseServer answers every call with body as an event stream; the URL is
// the API's base (/v1).
func sseServer(t *testing.T, body string) (string, *providertest.StreamServer) {
	t.Helper()
	s := providertest.NewStreamServer(t, body)
	return s.URL + "/v1", s
}

func chunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}` + "\n\n"
}

func streamWith(t *testing.T, kind, body string, req provider.Request) (*provider.Response, []provider.Delta, error) {
	t.Helper()
	url, _ := sseServer(t, body)
	p, err := New(provider.Config{Name: "p", Kind: kind, BaseURL: url, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var deltas []provider.Delta
	resp, err := p.Stream(context.Background(), req, func(d provider.Delta) { deltas = append(deltas, d) })
	return resp, deltas, err
}

// splitArgs streams s one or two bytes at a time, as fragments of the
// tool call at index.
func splitArgs(index, s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(2, len(s))
		frag, _ := json.Marshal(s[:n])
		out = append(out, chunk(`{"tool_calls":[{"index":`+index+`,"function":{"arguments":`+string(frag)+`}}]}`, ""))
		s = s[n:]
	}
	return out
}

// Two parallel calls whose arguments come in many fragments, interleaved
// between the calls, with keep-alive comments and CRLF line ends between
// them: each call gets exactly its own arguments.
func TestParallelToolArgumentsInManyChunks(t *testing.T) {
	argsA, argsB := `{"a": 2, "b": 3}`, `{"path": "dir/ü.txt", "n": [1, 2]}`
	var b strings.Builder
	b.WriteString(chunk(`{"role":"assistant","content":"Both: "}`, ""))
	b.WriteString(chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"add","arguments":""}}]}`, ""))
	b.WriteString(chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read","arguments":""}}]}`, ""))
	fa, fb := splitArgs("0", argsA), splitArgs("1", argsB)
	for i := 0; i < max(len(fa), len(fb)); i++ {
		if i < len(fa) {
			b.WriteString(fa[i])
		}
		b.WriteString(": keep-alive\r\n\r\n")
		if i < len(fb) {
			b.WriteString(strings.ReplaceAll(fb[i], "\n", "\r\n"))
		}
	}
	b.WriteString(chunk(`{}`, "tool_calls"))
	b.WriteString("data: [DONE]\n\n")
	resp, deltas, err := streamWith(t, provider.KindOpenAI, b.String(), providertest.SimpleRequest("gpt-4o"))
	if err != nil {
		t.Fatal(err)
	}
	uses := message.Message{Content: resp.Content}.ToolUses()
	if len(uses) != 2 || resp.StopReason != "tool_use" || resp.Content[0].Type != message.Text || resp.Content[0].Text != "Both: " {
		t.Fatalf("response %+v", resp)
	}
	for i, want := range []struct{ id, name, args string }{{"call_a", "add", argsA}, {"call_b", "read", argsB}} {
		if uses[i].ID != want.id || uses[i].Name != want.name || string(uses[i].Input) != want.args {
			t.Errorf("call %d: %s %s %s, want %+v", i, uses[i].ID, uses[i].Name, uses[i].Input, want)
		}
	}
	var starts []string
	for _, d := range deltas {
		if d.Kind == provider.DeltaToolStart {
			starts = append(starts, d.ToolID+"/"+d.ToolName)
		}
	}
	if strings.Join(starts, ",") != "call_a/add,call_b/read" {
		t.Errorf("tool start deltas %v", starts)
	}
}

// A server that leaves out the index (some proxies) still gets one call
// per id; one that sends an empty first fragment (Ollama) gets it skipped,
// and a call without an id gets one made up.
func TestToolCallsWithoutIndex(t *testing.T) {
	body := chunk(`{"tool_calls":[{"id":"x","type":"function","function":{"name":"","arguments":""}}]}`, "") +
		chunk(`{"tool_calls":[{"id":"one","type":"function","function":{"name":"a","arguments":"{\"k\":"}}]}`, "") +
		chunk(`{"tool_calls":[{"function":{"arguments":"1}"}}]}`, "") +
		chunk(`{"tool_calls":[{"id":"two","type":"function","function":{"name":"b","arguments":"{}"}}]}`, "") +
		chunk(`{"tool_calls":[{"index":5,"function":{"name":"c","arguments":""}}]}`, "") +
		chunk(`{}`, "tool_calls")
	resp, _, err := streamWith(t, provider.KindOpenAICompatible, body, providertest.SimpleRequest("m"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range (message.Message{Content: resp.Content}).ToolUses() {
		got = append(got, u.ID+" "+u.Name+" "+string(u.Input))
	}
	if strings.Join(got, "|") != `one a {"k":1}|two b {}|tool-call-5 c {}` {
		t.Errorf("calls %q", got)
	}
}

// An error event inside a 200 stream fails the call with the server's
// message; whether it is worth a retry comes from its type or code.
func TestErrorEventInsideStream(t *testing.T) {
	for _, c := range []struct {
		name, event string
		retryable   bool
		msg         string
	}{
		{"transient type", `data: {"error":{"message":"The server is overloaded","type":"server_error"}}`, true, "The server is overloaded"},
		{"numeric code", "event: error\ndata: {\"error\":{\"message\":\"Too many requests\",\"code\":429}}", true, "Too many requests"},
		{"bad request", `data: {"error":{"message":"Invalid image","type":"invalid_request_error","code":"invalid_image"}}`, false, "Invalid image"},
		{"bare string", `data: {"error":"context window exceeded"}`, false, "context window exceeded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A null error field on an ordinary chunk is no error.
			body := `data: {"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}],"error":null}` + "\n\n" + c.event + "\n\n"
			_, _, err := streamWith(t, provider.KindOpenAI, body, providertest.SimpleRequest("gpt-4o"))
			pe, ok := provider.AsError(err)
			if !ok || pe.Status != 0 || pe.Retryable != c.retryable || pe.Message != c.msg || pe.Provider != "p" {
				t.Fatalf("error %v (%+v), want message %q retryable %v", err, pe, c.msg, c.retryable)
			}
		})
	}
}

// A stream that ends cleanly before finish_reason is incomplete (worth a
// retry), unless it already carried tool calls, which some servers end
// without one.
func TestStreamEndsBeforeFinishReason(t *testing.T) {
	_, _, err := streamWith(t, provider.KindOpenAI, chunk(`{"content":"Hel"}`, "")+"data: [DONE]\n\n", providertest.SimpleRequest("gpt-4o"))
	pe, ok := provider.AsError(err)
	if !ok || !pe.Retryable || !errors.Is(err, provider.ErrIncompleteStream) {
		t.Fatalf("text without finish: %v (%+v)", err, pe)
	}
	resp, _, err := streamWith(t, provider.KindOpenAI,
		chunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, ""), providertest.SimpleRequest("gpt-4o"))
	if err != nil || resp.StopReason != "tool_use" || len(message.Message{Content: resp.Content}.ToolUses()) != 1 {
		t.Fatalf("tool call without finish: %+v %v", resp, err)
	}
	// A connection dropped mid-stream is a transport failure, retryable too.
	url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, chunk(`{"content":"Hel"}`, ""))
		w.(http.Flusher).Flush()
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = conn.Close()
		}
	})
	p, _ := New(provider.Config{Name: "p", Kind: provider.KindOpenAI, BaseURL: url + "/v1", APIKey: "k"})
	_, err = p.Stream(context.Background(), providertest.SimpleRequest("gpt-4o"), nil)
	if pe, ok := provider.AsError(err); !ok || !pe.Retryable {
		t.Fatalf("dropped connection: %v", err)
	}
}

// Usage comes from the last chunk that has it: cached tokens are taken out
// of the input (Anthropic's convention), reasoning tokens kept; a later
// chunk without usage does not wipe it.
func TestUsageWithCachedAndReasoningTokens(t *testing.T) {
	body := chunk(`{"content":"ok"}`, "stop") +
		`data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":30,"total_tokens":130,"prompt_tokens_details":{"cached_tokens":40},"completion_tokens_details":{"reasoning_tokens":12}}}` + "\n\n" +
		`data: {"choices":[],"usage":null}` + "\n\n" + "data: [DONE]\n\n"
	resp, _, err := streamWith(t, provider.KindOpenAI, body, providertest.SimpleRequest("gpt-5"))
	if err != nil {
		t.Fatal(err)
	}
	want := message.Usage{InputTokens: 60, CacheReadTokens: 40, OutputTokens: 30, ReasoningTokens: 12}
	if resp.Usage != want || resp.StopReason != "end_turn" {
		t.Errorf("usage %+v stop %q, want %+v", resp.Usage, resp.StopReason, want)
	}
}

// Reasoning streamed as reasoning_content (or reasoning, Kimi's name) by
// an OpenAI-compatible server becomes a thinking block, goes back as
// reasoning_content on the assistant message, and only to that provider;
// kind openai reads no reasoning.
func TestReasoningContentRoundTrip(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning"} {
		t.Run(field, func(t *testing.T) {
			body := chunk(`{"role":"assistant","content":"","`+field+`":"Let me "}`, "") +
				chunk(`{"`+field+`":"check."}`, "") +
				chunk(`{"content":"Checking."}`, "") +
				chunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"location\":\"Paris\"}"}}]}`, "") +
				chunk(`{}`, "tool_calls") + "data: [DONE]\n\n"
			url, srv := sseServer(t, body)
			p, err := New(provider.Config{Name: "kimi", Kind: provider.KindOpenAICompatible, BaseURL: url, APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			req := providertest.SimpleRequest("kimi-k2")
			var thinking strings.Builder
			resp, err := p.Stream(context.Background(), req, func(d provider.Delta) {
				if d.Kind == provider.DeltaThinking {
					thinking.WriteString(d.Text)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Content) != 3 || resp.Content[0].Type != message.Thinking || resp.Content[0].Text != "Let me check." ||
				resp.Content[0].Provider != "kimi" || resp.Content[1].Text != "Checking." || thinking.String() != "Let me check." {
				t.Fatalf("content %+v, thinking deltas %q", resp.Content, thinking.String())
			}
			foreign := message.Block{Type: message.Thinking, Text: "someone else's", Provider: "other"}
			req.Messages = append(req.Messages,
				message.Message{Role: message.Assistant, Content: append([]message.Block{foreign}, resp.Content...)},
				message.Message{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: "c1", Content: []message.Block{message.TextBlock("20 C")}}}})
			if _, err := p.Stream(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			var got chatRequest
			if err := json.Unmarshal([]byte(srv.Body(1)), &got); err != nil {
				t.Fatal(err)
			}
			a := got.Messages[1]
			if a.Role != "assistant" || a.ReasoningContent == nil || *a.ReasoningContent != "Let me check." || a.Content != "Checking." || len(a.ToolCalls) != 1 {
				t.Errorf("assistant message sent back: %s", []byte(srv.Body(1)))
			}
			if strings.Contains(srv.Body(1), "someone else") {
				t.Errorf("foreign thinking was sent: %s", []byte(srv.Body(1)))
			}
		})
	}
	resp, _, err := streamWith(t, provider.KindOpenAI, chunk(`{"reasoning_content":"hidden","content":"Hi"}`, "stop"), providertest.SimpleRequest("gpt-4o"))
	if err != nil || len(resp.Content) != 1 || resp.Content[0].Text != "Hi" {
		t.Errorf("kind openai: %+v %v", resp, err)
	}
}
