package scripted

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func startServer(t *testing.T, script Script, opts ...Option) (*Server, string) {
	t.Helper()
	srv := New(script, opts...)
	url, err := srv.Start()
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv, url
}

// toolsBody is a minimal Anthropic request body with one tool.
func anthropicBody(stream bool, messages ...map[string]any) map[string]any {
	if len(messages) == 0 {
		messages = []map[string]any{{"role": "user", "content": "hi"}}
	}
	return map[string]any{
		"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": stream,
		"messages": messages,
		"tools":    []any{map[string]any{"name": "Read", "input_schema": map[string]any{"type": "object"}}},
	}
}

func openAIBody(stream bool, messages ...map[string]any) map[string]any {
	if len(messages) == 0 {
		messages = []map[string]any{{"role": "user", "content": "hi"}}
	}
	return map[string]any{
		"model": "gpt-4o", "stream": stream, "messages": messages,
		"stream_options": map[string]any{"include_usage": true},
		"tools":          []any{map[string]any{"type": "function", "function": map[string]any{"name": "Read"}}},
	}
}

func post(t *testing.T, url string, body any, header ...string) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

type sse struct {
	name string
	data string
}

// readSSE parses a whole event stream; err is the body read error.
func readSSE(r io.Reader) ([]sse, error) {
	var out []sse
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur sse
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" || cur.name != "" {
				out = append(out, cur)
			}
			cur = sse{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out, sc.Err()
}

// anthropicStreamText collects the text deltas of an Anthropic stream.
func anthropicStreamText(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	events, err := readSSE(resp.Body)
	if err != nil {
		t.Fatalf("read stream: %v", err)
	}
	var b strings.Builder
	for _, ev := range events {
		var d struct {
			Delta struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
		}
		if ev.name == "content_block_delta" && json.Unmarshal([]byte(ev.data), &d) == nil && d.Delta.Type == "text_delta" {
			b.WriteString(d.Delta.Text)
		}
	}
	return b.String()
}

func decodeJSON(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return m
}
