package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWebSearchNoBackend(t *testing.T) {
	res := call(t, NewWebSearch(nil), map[string]any{"query": "golang"})
	if !res.IsError || res.Content != NoBackendMessage {
		t.Fatalf("got %+v", res)
	}
	if SearcherFromEnv(func(string) string { return "" }) != nil {
		t.Fatal("searcher without keys")
	}
	if _, ok := SearcherFromEnv(func(k string) string {
		if k == "TAVILY_API_KEY" {
			return "t"
		}
		return ""
	}).(*Tavily); !ok {
		t.Fatal("TAVILY_API_KEY not used")
	}
}

func TestWebSearchBrave(t *testing.T) {
	var gotQ, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQ, gotKey = r.URL.Query().Get("q"), r.Header.Get("X-Subscription-Token")
		if gotKey != "k1" {
			http.Error(w, `{"error":"bad key"}`, http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"web": map[string]any{"results": []map[string]string{
			{"title": "Go <strong>docs</strong>", "url": "https://go.dev/doc", "description": "The <strong>Go</strong> docs"},
			{"title": "Blog", "url": "https://blog.go.dev/x", "description": "sub"},
			{"title": "Spam", "url": "https://spam.example/x", "description": "no"},
		}}})
	}))
	defer srv.Close()
	ws := NewWebSearch(&Brave{APIKey: "k1", BaseURL: srv.URL})
	res := call(t, ws, map[string]any{"query": "go docs", "allowed_domains": []string{"go.dev"}})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if !strings.Contains(gotQ, "site:go.dev") {
		t.Errorf("query sent %q", gotQ)
	}
	if !strings.Contains(res.Content, "1. [Go docs](https://go.dev/doc)") || !strings.Contains(res.Content, "blog.go.dev") || strings.Contains(res.Content, "spam") {
		t.Fatalf("content %s", res.Content)
	}
	res = call(t, ws, map[string]any{"query": "go docs", "blocked_domains": []string{"https://blog.go.dev/"}})
	if strings.Contains(res.Content, "blog.go.dev") || !strings.Contains(res.Content, "spam.example") || !strings.Contains(gotQ, "-site:blog.go.dev") {
		t.Fatalf("blocked: %s (q %q)", res.Content, gotQ)
	}
	res = call(t, NewWebSearch(&Brave{APIKey: "wrong", BaseURL: srv.URL}), map[string]any{"query": "go"})
	if !res.IsError || !strings.Contains(res.Content, "check the API key") {
		t.Fatalf("bad key: %+v", res)
	}
}

func TestWebSearchTavily(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tk" || r.Method != http.MethodPost {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		json.NewDecoder(r.Body).Decode(&got)
		w.Write([]byte(`{"results":[{"title":"A","url":"https://a.com/1","content":"alpha"}]}`))
	}))
	defer srv.Close()
	res := call(t, NewWebSearch(&Tavily{APIKey: "tk", BaseURL: srv.URL}), map[string]any{"query": "alpha", "blocked_domains": []string{"b.com"}})
	if res.IsError || !strings.Contains(res.Content, "[A](https://a.com/1)") || !strings.Contains(res.Content, "alpha") {
		t.Fatalf("got %+v", res)
	}
	if got["query"] != "alpha" || got["exclude_domains"] == nil {
		t.Fatalf("payload %v", got)
	}
}

func TestWebSearchInvalidInput(t *testing.T) {
	ws := NewWebSearch(&Tavily{APIKey: "x", BaseURL: "http://127.0.0.1:1"})
	cases := []struct{ name, input, want string }{
		{"missing query", `{}`, `"query" is missing`},
		{"short query", `{"query":"a"}`, "at least 2 characters"},
		{"domains not array", `{"query":"ab","allowed_domains":"x.com"}`, "must be an array"},
		{"bad domain", `{"query":"ab","blocked_domains":["a b"]}`, "not a domain name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, ws, tc.input)
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("got %+v, want %q", res, tc.want)
			}
		})
	}
}

// Without a backend WebSearch is not offered; a backend that cannot serve
// the model (the provider's own search) says so through the tool.
func TestWebSearchAvailability(t *testing.T) {
	if NewWebSearch(nil).Unavailable("openai/gpt-5") != NoBackendMessage {
		t.Error("WebSearch without a backend is offered")
	}
	if why := NewWebSearch(&Brave{APIKey: "k"}).Unavailable("openai/gpt-5"); why != "" {
		t.Errorf("WebSearch with Brave: %q", why)
	}
	if why := NewWebSearch(modelBound{}).Unavailable("openai/gpt-5"); why != "no search for openai/gpt-5" {
		t.Errorf("a backend's own answer is lost: %q", why)
	}
}

type modelBound struct{ Searcher }

func (modelBound) Unavailable(m string) string { return "no search for " + m }
