package responses

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

// newServer is the test's endpoint (the Responses API at /v1).
func newServer(t *testing.T, streams ...string) *providertest.StreamServer {
	t.Helper()
	return providertest.NewStreamServer(t, streams...)
}

// sse frames events as the API does: an event line naming the type, then
// the data.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(e), &head)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", head.Type, e)
	}
	return b.String()
}

func ev(typ string, fields string) string {
	if fields == "" {
		return `{"type":"` + typ + `"}`
	}
	return `{"type":"` + typ + `",` + fields + `}`
}

func completed(usage string) string {
	return ev("response.completed", `"response":{"status":"completed","usage":`+usage+`}`)
}

func streamFrom(t *testing.T, s *providertest.StreamServer, req provider.Request) (*provider.Response, []provider.Delta, error) {
	t.Helper()
	p, err := New(provider.Config{Name: "openai", Kind: provider.KindOpenAIResponses, BaseURL: s.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var deltas []provider.Delta
	resp, err := p.Stream(context.Background(), req, func(d provider.Delta) { deltas = append(deltas, d) })
	return resp, deltas, err
}

func userSays(text string) []message.Message {
	return []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock(text)}}}
}

// argDeltas streams args two bytes at a time as the output item's
// function_call_arguments deltas.
func argDeltas(index int, args string) []string {
	var out []string
	for len(args) > 0 {
		n := min(2, len(args))
		frag, _ := json.Marshal(args[:n])
		out = append(out, ev("response.function_call_arguments.delta", fmt.Sprintf(`"output_index":%d,"item_id":"fc_%d","delta":%s`, index, index, frag)))
		args = args[n:]
	}
	return out
}

// Two calls whose arguments stream in many interleaved deltas each come
// out whole, in output order, whether the stream's output_item.done
// events carry the arguments or not.
func TestResponsesArgumentsAcrossDeltas(t *testing.T) {
	argsA, argsB := `{"file_path":"/tmp/a.go","limit":20}`, `{"command":"go test ./... -run 'TestX|TestY'"}`
	added := []string{
		ev("response.output_item.added", `"output_index":0,"item":{"type":"function_call","id":"fc_0","call_id":"call_a","name":"Read","arguments":""}`),
		ev("response.output_item.added", `"output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_b","name":"Bash","arguments":""}`),
	}
	da, db := argDeltas(0, argsA), argDeltas(1, argsB)
	var deltas []string
	for i := 0; i < max(len(da), len(db)); i++ {
		if i < len(da) {
			deltas = append(deltas, da[i])
		}
		if i < len(db) {
			deltas = append(deltas, db[i])
		}
	}
	doneItem := func(i int, id, name, args string) string {
		a, _ := json.Marshal(args)
		return ev("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":{"type":"function_call","id":"fc_%d","call_id":"%s","name":"%s","arguments":%s}`, i, i, id, name, a))
	}
	usage := `{"input_tokens":50,"output_tokens":30}`
	streams := map[string][]string{
		"with done items": append(append(append([]string{ev("response.created", `"response":{"status":"in_progress"}`)}, added...), deltas...),
			doneItem(1, "call_b", "Bash", argsB), doneItem(0, "call_a", "Read", argsA), completed(usage)),
		"deltas only": append(append(append([]string{}, added...), deltas...), completed(usage)),
		"arguments done events": append(append(append([]string{}, added...), deltas...),
			ev("response.function_call_arguments.done", `"output_index":0,"arguments":`+quote(argsA)),
			ev("response.output_item.done", `"output_index":0,"item":{"type":"function_call","call_id":"call_a","name":"Read"}`),
			completed(usage)),
	}
	for name, events := range streams {
		t.Run(name, func(t *testing.T) {
			resp, ds, err := streamFrom(t, newServer(t, sse(events...)), provider.Request{Model: "gpt-5", Messages: userSays("go")})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != "tool_use" || len(resp.Content) != 2 {
				t.Fatalf("response: %+v", resp)
			}
			for i, want := range []message.Block{{Type: message.ToolUse, ID: "call_a", Name: "Read", Input: json.RawMessage(argsA)},
				{Type: message.ToolUse, ID: "call_b", Name: "Bash", Input: json.RawMessage(argsB)}} {
				got := resp.Content[i]
				if got.Type != want.Type || got.ID != want.ID || got.Name != want.Name || string(got.Input) != string(want.Input) {
					t.Errorf("call %d: got %+v, want %+v", i, got, want)
				}
			}
			var starts []string
			for _, d := range ds {
				if d.Kind == provider.DeltaToolStart {
					starts = append(starts, d.ToolID+" "+d.ToolName)
				}
			}
			if strings.Join(starts, ",") != "call_a Read,call_b Bash" {
				t.Errorf("tool starts: %q", starts)
			}
			if resp.Usage.InputTokens != 50 || resp.Usage.OutputTokens != 30 {
				t.Errorf("usage: %+v", resp.Usage)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A reasoning item comes back with its encrypted content, summary parts
// joined; the next call sends it back whole, right before the call it led
// to, then the call and its output.
func TestResponsesReasoningRoundTrip(t *testing.T) {
	first := sse(
		ev("response.output_item.added", `"output_index":0,"item":{"type":"reasoning","id":"rs_9","summary":[]}`),
		ev("response.reasoning_summary_part.added", `"output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`),
		ev("response.reasoning_summary_text.delta", `"output_index":0,"summary_index":0,"delta":"**Plan** read "`),
		ev("response.reasoning_summary_text.delta", `"output_index":0,"summary_index":0,"delta":"the file"`),
		ev("response.reasoning_summary_text.delta", `"output_index":0,"summary_index":1,"delta":"then answer"`),
		ev("response.output_item.done", `"output_index":0,"item":{"type":"reasoning","id":"rs_9","encrypted_content":"gAAAAB-enc==","summary":[{"type":"summary_text","text":"**Plan** read the file"},{"type":"summary_text","text":"then answer"}]}`),
		ev("response.output_item.added", `"output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"Read","arguments":""}`),
		ev("response.function_call_arguments.delta", `"output_index":1,"delta":"{\"file_path\":\"a\"}"`),
		ev("response.output_item.done", `"output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"Read","arguments":"{\"file_path\":\"a\"}"}`),
		completed(`{"input_tokens":1200,"output_tokens":300,"input_tokens_details":{"cached_tokens":1024},"output_tokens_details":{"reasoning_tokens":256}}`),
	)
	second := sse(
		ev("response.output_item.added", `"output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}`),
		ev("response.output_text.delta", `"output_index":0,"content_index":0,"delta":"It says "`),
		ev("response.output_text.delta", `"output_index":0,"content_index":0,"delta":"hello."`),
		ev("response.output_item.done", `"output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"It says hello."}]}`),
		completed(`{"input_tokens":1500,"output_tokens":5}`),
	)
	s := newServer(t, first, second)
	req := provider.Request{Model: "gpt-5", Effort: "high", System: []string{"be brief"}, Messages: userSays("read a")}
	r1, ds, err := streamFrom(t, s, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Content) != 2 || r1.Content[0].Type != message.Thinking || r1.Content[0].Text != "**Plan** read the file\n\nthen answer" ||
		r1.Content[0].Provider != "openai" || r1.Content[0].Signature != `{"id":"rs_9","encrypted_content":"gAAAAB-enc=="}` {
		t.Fatalf("first response: %+v", r1.Content)
	}
	if u := r1.Usage; u.InputTokens != 176 || u.CacheReadTokens != 1024 || u.OutputTokens != 300 || u.ReasoningTokens != 256 {
		t.Errorf("usage: %+v", u)
	}
	if got := providertest.DeltaString(ds, provider.DeltaThinking); got != "**Plan** read the filethen answer" {
		t.Errorf("thinking deltas: %q", got)
	}
	req.Messages = append(req.Messages, message.Message{Role: message.Assistant, Content: r1.Content},
		message.Message{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: "call_1", Content: []message.Block{message.TextBlock("hello")}}}})
	r2, ds, err := streamFrom(t, s, req)
	if err != nil {
		t.Fatal(err)
	}
	if providertest.MessageText(r2.Content) != "It says hello." || r2.StopReason != "end_turn" || providertest.DeltaString(ds, provider.DeltaText) != "It says hello." {
		t.Errorf("second response: %+v", r2)
	}
	var sent struct {
		Input     []json.RawMessage `json:"input"`
		Include   []string          `json:"include"`
		Reasoning map[string]string `json:"reasoning"`
		Store     *bool             `json:"store"`
		Stream    bool              `json:"stream"`
	}
	if err := json.Unmarshal([]byte(s.Body(1)), &sent); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"content":[{"text":"read a","type":"input_text"}],"role":"user","type":"message"}`,
		`{"encrypted_content":"gAAAAB-enc==","id":"rs_9","summary":[{"text":"**Plan** read the file\n\nthen answer","type":"summary_text"}],"type":"reasoning"}`,
		`{"arguments":"{\"file_path\":\"a\"}","call_id":"call_1","name":"Read","type":"function_call"}`,
		`{"call_id":"call_1","output":"hello","type":"function_call_output"}`,
	}
	if len(sent.Input) != len(want) {
		t.Fatalf("input: %s", s.Body(1))
	}
	for i, w := range want {
		if string(sent.Input[i]) != w {
			t.Errorf("input %d: %s, want %s", i, sent.Input[i], w)
		}
	}
	if sent.Store == nil || *sent.Store || !sent.Stream || strings.Join(sent.Include, ",") != "reasoning.encrypted_content" ||
		sent.Reasoning["effort"] != "high" || sent.Reasoning["summary"] != "auto" {
		t.Errorf("request: %s", s.Body(1))
	}
}

// response.incomplete (the output limit) ends the stream with what came,
// as max_tokens, usage included; an item the limit cut before its
// output_item.done keeps the text its deltas carried.
func TestResponsesIncomplete(t *testing.T) {
	s := newServer(t, sse(
		ev("response.output_item.added", `"output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}`),
		ev("response.output_text.delta", `"output_index":0,"content_index":0,"delta":"The answer is a long "`),
		ev("response.output_text.delta", `"output_index":0,"content_index":0,"delta":"list of"`),
		ev("response.incomplete", `"response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":20,"output_tokens":16}}`),
	))
	resp, _, err := streamFrom(t, s, provider.Request{Model: "gpt-4o", MaxTokens: 16, Messages: userSays("list")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != "max_tokens" || providertest.MessageText(resp.Content) != "The answer is a long list of" || resp.Usage.OutputTokens != 16 {
		t.Errorf("response: %+v", resp)
	}
	if !strings.Contains(s.Body(0), `"max_output_tokens":16`) {
		t.Errorf("request: %s", s.Body(0))
	}
}

// Failures inside a 200 stream: the API's message, no HTTP status, and
// retryable only for trouble on the server's side.
func TestResponsesStreamErrors(t *testing.T) {
	text := ev("response.output_text.delta", `"output_index":0,"delta":"partial"`)
	cases := []struct {
		name, event string
		msg         string
		retryable   bool
	}{
		{"failed, server error", ev("response.failed", `"response":{"status":"failed","error":{"code":"server_error","message":"The server had an error processing your request."}}`),
			"The server had an error processing your request.", true},
		{"failed, rate limit", ev("response.failed", `"response":{"status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached"}}`),
			"Rate limit reached", true},
		{"failed, invalid image", ev("response.failed", `"response":{"status":"failed","error":{"code":"invalid_image","message":"The image is not valid."}}`),
			"The image is not valid.", false},
		{"failed without error", ev("response.failed", `"response":{"status":"failed","error":null}`), "the response failed", true},
		{"error event", ev("error", `"code":"invalid_prompt","message":"Invalid prompt: flagged","param":null,"sequence_number":3`),
			"Invalid prompt: flagged", false},
		{"error event with an error object", ev("error", `"error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your input exceeds the context window of this model.","param":"input"},"sequence_number":2`),
			"Your input exceeds the context window of this model.", false},
		{"error event, overloaded", ev("error", `"error":{"type":"server_error","code":null,"message":"overloaded"}`), "overloaded", true},
		{"error event with a status code", ev("error", `"code":429,"message":"slow down"`), "slow down", true},
		{"bare error chunk", `{"error":{"message":"upstream failed","type":"api_error"}}`, "upstream failed", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := streamFrom(t, newServer(t, sse(text, c.event, completed(`{"input_tokens":1,"output_tokens":1}`))),
				provider.Request{Model: "gpt-5", Messages: userSays("x")})
			pe, ok := provider.AsError(err)
			if !ok || pe.Message != c.msg || pe.Retryable != c.retryable || pe.Status != 0 || pe.Auth || pe.Provider != "openai" {
				t.Errorf("got %#v", err)
			}
		})
	}
}

// A stream that ends before response.completed (cleanly, inside an event,
// or by the connection dropping) is retryable and returns no response.
func TestResponsesStreamCut(t *testing.T) {
	partial := sse(ev("response.output_item.added", `"output_index":0,"item":{"type":"message","content":[]}`),
		ev("response.output_text.delta", `"output_index":0,"delta":"Hel"`))
	for name, body := range map[string]string{
		"after an event":   partial,
		"inside an event":  partial + "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"comp",
		"before any event": "",
	} {
		t.Run(name, func(t *testing.T) {
			resp, _, err := streamFrom(t, newServer(t, body), provider.Request{Model: "gpt-5", Messages: userSays("x")})
			pe, ok := provider.AsError(err)
			if resp != nil || !ok || !pe.Retryable || !errors.Is(err, provider.ErrIncompleteStream) {
				t.Errorf("got %v, %#v", resp, err)
			}
		})
	}
	t.Run("connection dropped", func(t *testing.T) {
		url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Length", "100000") // promised, never sent
			_, _ = io.WriteString(w, partial)
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		p, _ := New(provider.Config{Name: "openai", Kind: provider.KindOpenAIResponses, BaseURL: url + "/v1", APIKey: "k"})
		_, err := p.Stream(context.Background(), provider.Request{Model: "gpt-5", Messages: userSays("x")}, nil)
		if pe, ok := provider.AsError(err); !ok || !pe.Retryable {
			t.Errorf("got %#v", err)
		}
	})
}

// Error answers: the server's message, Auth for 401/403, Retry-After kept.
func TestResponsesHTTPErrors(t *testing.T) {
	cases := []struct {
		code            int
		header, body    string
		msg             string
		auth, retryable bool
	}{
		{401, "", `{"error":{"message":"Incorrect API key provided: sk-...","type":"invalid_request_error","code":"invalid_api_key"}}`, "Incorrect API key provided: sk-...", true, false},
		{403, "", `{"error":{"message":"Project does not have access to model o3-pro"}}`, "Project does not have access to model o3-pro", true, false},
		{429, "2", `{"error":{"message":"Rate limit reached for gpt-5","type":"requests"}}`, "Rate limit reached for gpt-5", false, true},
		{400, "", `{"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}}`, "Your input exceeds the context window of this model.", false, false},
		{503, "", `upstream connect error`, "Service Unavailable", false, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.code), func(t *testing.T) {
			url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
				if c.header != "" {
					w.Header().Set("Retry-After", c.header)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.code)
				_, _ = io.WriteString(w, c.body)
			})
			p, _ := New(provider.Config{Name: "openai", Kind: provider.KindOpenAIResponses, BaseURL: url + "/v1", APIKey: "k"})
			_, err := p.Stream(context.Background(), provider.Request{Model: "gpt-5", Messages: userSays("x")}, nil)
			pe, ok := provider.AsError(err)
			if !ok || pe.Status != c.code || pe.Message != c.msg || pe.Auth != c.auth || pe.Retryable != c.retryable {
				t.Fatalf("got %#v", err)
			}
			if c.header != "" && pe.RetryAfter.Seconds() != 2 {
				t.Errorf("retry after %v", pe.RetryAfter)
			}
		})
	}
}

// What goes on the wire besides the body: the path under the base URL
// (its query kept), the key as a bearer token (and Azure's api-key), the
// configured and per-call headers.
func TestResponsesRequestHeaders(t *testing.T) {
	s := newServer(t, sse(completed(`{"input_tokens":1,"output_tokens":1}`)))
	p, err := New(provider.Config{Name: "openai", Kind: provider.KindOpenAIResponses, BaseURL: s.URL + "/openai/v1/?api-version=preview", APIKey: "sk-1",
		Headers: map[string]string{"X-Team": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), provider.Request{Model: "gpt-5", Messages: userSays("x"), Headers: map[string]string{"X-Call": "b"}}, nil); err != nil {
		t.Fatal(err)
	}
	path, h := s.Request(0)
	if path != "/openai/v1/responses?api-version=preview" || h.Get("Authorization") != "Bearer sk-1" || h.Get("Content-Type") != "application/json" ||
		h.Get("X-Team") != "a" || h.Get("X-Call") != "b" || h.Get("Api-Key") != "" {
		t.Errorf("path %s, headers %v", path, h)
	}

	// Azure takes the key in api-key as well (its host is served here by
	// a transport that answers in place of the network).
	var azure http.Header
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		azure = r.Header.Clone()
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: r,
			Body: io.NopCloser(strings.NewReader(sse(completed(`{"input_tokens":1,"output_tokens":1}`))))}, nil
	})}
	az, _ := New(provider.Config{Name: "azure", Kind: provider.KindOpenAIResponses, BaseURL: "https://x.openai.azure.com/openai/v1", APIKey: "az", HTTPClient: client})
	if _, err := az.Stream(context.Background(), provider.Request{Model: "gpt-5", Messages: userSays("x")}, nil); err != nil {
		t.Fatal(err)
	}
	if azure.Get("Api-Key") != "az" || azure.Get("Authorization") != "Bearer az" {
		t.Errorf("azure headers: %v", azure)
	}

	bad, _ := New(provider.Config{Name: "openai", Kind: provider.KindOpenAIResponses, BaseURL: "localhost:8080/v1"})
	if _, err := bad.Stream(context.Background(), provider.Request{Model: "gpt-5", Messages: userSays("x")}, nil); err == nil || !strings.Contains(err.Error(), "not an absolute URL") {
		t.Errorf("bad base URL: %v", err)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
