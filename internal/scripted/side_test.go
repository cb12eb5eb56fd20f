package scripted

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestSideRequestsDoNotConsumeSteps(t *testing.T) {
	tests := []struct {
		name     string
		opts     []Option
		mutate   func(map[string]any)
		wantText string
		wantSide bool
	}{
		{"main request", nil, func(map[string]any) {}, "step0", false},
		{"no tools", nil, func(b map[string]any) { delete(b, "tools") }, "title", true},
		{"empty tools", nil, func(b map[string]any) { b["tools"] = []any{} }, "title", true},
		{"haiku model", nil, func(b map[string]any) { b["model"] = "claude-3-5-haiku-20241022" }, "title", true},
		{"pattern off", []Option{WithSideModelPattern("")}, func(b map[string]any) { b["model"] = "claude-haiku-4-5" }, "step0", false},
		{"custom pattern", []Option{WithSideModelPattern("^mini-")}, func(b map[string]any) { b["model"] = "mini-x" }, "title", true},
		{"no-tools detection off", []Option{WithSideWithoutTools(false)}, func(b map[string]any) { delete(b, "tools") }, "step0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := startServer(t, Script{Steps: []Step{TextStep("step0")}, Fallback: &Step{Text: "title"}}, tt.opts...)
			body := anthropicBody(true)
			tt.mutate(body)
			if got := anthropicStreamText(t, post(t, url+"/v1/messages", body)); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			if r := srv.Requests()[0]; r.Side != tt.wantSide {
				t.Errorf("side = %v", r.Side)
			}
			// A main request afterwards still gets step 0 unless step 0 was used.
			want := "step0"
			if !tt.wantSide {
				want = "title" // past the end: fallback
				body = anthropicBody(true, map[string]any{"role": "user", "content": "a"},
					map[string]any{"role": "assistant", "content": "step0"}, map[string]any{"role": "user", "content": "b"})
			} else {
				body = anthropicBody(true)
			}
			if got := anthropicStreamText(t, post(t, url+"/v1/messages", body)); got != want {
				t.Errorf("follow-up text = %q, want %q", got, want)
			}
		})
	}
}

func TestDefaultFallbackAndAdjacentAssistantMessages(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{TextStep("zero"), TextStep("one")}})
	// Two adjacent assistant messages are one turn: step 1.
	body := anthropicBody(false,
		map[string]any{"role": "user", "content": "q"},
		map[string]any{"role": "assistant", "content": "thinking part"},
		map[string]any{"role": "assistant", "content": "tool part"},
		map[string]any{"role": "user", "content": "result"})
	resp := post(t, url+"/v1/messages", body)
	m := decodeJSON(t, resp.Body)
	resp.Body.Close()
	if fmt.Sprint(m["content"]) != "[map[text:one type:text]]" {
		t.Errorf("content = %v", m["content"])
	}
	body = openAIBody(false,
		map[string]any{"role": "user", "content": "q"}, map[string]any{"role": "assistant", "content": "a"},
		map[string]any{"role": "tool", "content": "r", "tool_call_id": "c"}, map[string]any{"role": "assistant", "content": "b"},
		map[string]any{"role": "user", "content": "again"})
	resp = post(t, url+"/v1/chat/completions", body)
	m = decodeJSON(t, resp.Body)
	resp.Body.Close()
	if !strings.Contains(fmt.Sprint(m["choices"]), "content:done") {
		t.Errorf("past the end = %v, want default fallback \"done\"", m["choices"])
	}
}

func TestAuxiliaryEndpoints(t *testing.T) {
	srv, url := startServer(t, Script{}, WithModels("claude-sonnet-4-5", "gpt-4o"))
	get := func(method, path string) (int, string) {
		req, _ := http.NewRequest(method, url+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("GET", "/"); code != 200 || body != "ok\n" {
		t.Errorf("GET / = %d %q", code, body)
	}
	if code, _ := get("HEAD", "/"); code != 200 {
		t.Errorf("HEAD / = %d", code)
	}
	if code, body := get("GET", "/v1/models"); code != 200 || !strings.Contains(body, `"id":"gpt-4o"`) || !strings.Contains(body, `"has_more":false`) {
		t.Errorf("models = %d %s", code, body)
	}
	if code, body := get("GET", "/v1/models/claude-x"); code != 200 || !strings.Contains(body, `"id":"claude-x"`) {
		t.Errorf("model = %d %s", code, body)
	}
	if code, body := get("GET", "/v1/nothing"); code != 404 || !strings.Contains(body, "not_found_error") {
		t.Errorf("unknown = %d %s", code, body)
	}
	resp := post(t, url+"/v1/messages/count_tokens", map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": strings.Repeat("a", 400)}}})
	m := decodeJSON(t, resp.Body)
	resp.Body.Close()
	if n, _ := m["input_tokens"].(float64); n < 100 {
		t.Errorf("count_tokens = %v", m)
	}
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader("{not json"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("bad JSON = %d", resp.StatusCode)
	}
	if n := len(srv.Requests()); n != 7 {
		t.Errorf("recorded %d requests, want 7", n)
	}
}

func TestRequireKey(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{TextStep("hi")}, RequireKey: "sekret"})
	tests := []struct {
		path   string
		body   map[string]any
		header []string
		want   int
		errTyp string
	}{
		{"/v1/messages", anthropicBody(false), nil, 401, "authentication_error"},
		{"/v1/messages", anthropicBody(false), []string{"x-api-key", "wrong"}, 401, "authentication_error"},
		{"/v1/messages", anthropicBody(false), []string{"x-api-key", "sekret"}, 200, ""},
		{"/v1/messages", anthropicBody(false), []string{"Authorization", "Bearer sekret"}, 200, ""},
		{"/v1/chat/completions", openAIBody(false), nil, 401, "invalid_request_error"},
		{"/v1/chat/completions", openAIBody(false), []string{"Authorization", "Bearer sekret"}, 200, ""},
	}
	for _, tt := range tests {
		resp := post(t, url+tt.path, tt.body, tt.header...)
		m := decodeJSON(t, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s %v: status %d, want %d", tt.path, tt.header, resp.StatusCode, tt.want)
		}
		if tt.errTyp != "" {
			e, _ := m["error"].(map[string]any)
			if e["type"] != tt.errTyp {
				t.Errorf("%s: error body %v", tt.path, m)
			}
		}
	}
}

func TestInvalidScript(t *testing.T) {
	srv := New(Script{Steps: []Step{ToolStep(ToolCall{})}})
	if _, err := srv.Start(); err == nil || !strings.Contains(err.Error(), "steps[0].tool_calls[0].name") {
		t.Fatalf("Start error = %v", err)
	}
}

// TestConcurrentConversations drives many conversations at once; each
// must walk the script in order no matter how requests interleave.
func TestConcurrentConversations(t *testing.T) {
	const steps, convs = 4, 64
	script := Script{}
	for i := range steps {
		script.Steps = append(script.Steps, TextStep(fmt.Sprintf("reply %d", i)))
	}
	srv, url := startServer(t, script)
	var wg sync.WaitGroup
	errs := make(chan error, convs)
	for c := range convs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msgs := []map[string]any{{"role": "user", "content": fmt.Sprintf("conv %d", c)}}
			for i := range steps + 1 {
				path, body := "/v1/messages", anthropicBody(true, msgs...)
				if c%2 == 1 {
					path, body = "/v1/chat/completions", openAIBody(false, msgs...)
				}
				resp := post(t, url+path, body)
				var got string
				if c%2 == 1 {
					m := decodeJSON(t, resp.Body)
					resp.Body.Close()
					got = m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
				} else {
					got = anthropicStreamText(t, resp)
				}
				want := fmt.Sprintf("reply %d", i)
				if i == steps {
					want = "done"
				}
				if got != want {
					errs <- fmt.Errorf("conv %d turn %d: got %q want %q", c, i, got, want)
					return
				}
				msgs = append(msgs, map[string]any{"role": "assistant", "content": got}, map[string]any{"role": "user", "content": "next"})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(srv.MainRequests()); n != convs*(steps+1) {
		t.Errorf("main requests = %d", n)
	}
}
