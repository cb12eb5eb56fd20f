package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

func call(t *testing.T, tl tool.Tool, input any) tool.Result {
	t.Helper()
	raw, ok := input.(string)
	if !ok {
		b, _ := json.Marshal(input)
		raw = string(b)
	}
	env := tool.NewEnv("s", t.TempDir(), nil, "")
	res, err := tl.Execute(context.Background(), tool.Call{ID: "c", Name: tl.Name(), Input: json.RawMessage(raw), Env: env})
	if err != nil {
		t.Fatalf("Go error: %v", err)
	}
	return res
}

func testServer(t *testing.T, hits *atomic.Int64) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		if hits != nil {
			hits.Add(1)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>T</title><script>var x=1;</script></head><body>
<h1>Hello World</h1><p>Some <strong>bold</strong> text and a <a href="/docs">link</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "just text")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a":1}`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 3000)))
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n...."))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", 404) })
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/plain", http.StatusFound) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://example.org/elsewhere", http.StatusMovedPermanently)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestWebFetch(t *testing.T) {
	srv := testServer(t, nil)
	f := NewWebFetch(FetchConfig{AllowPrivate: true, MaxBytes: 1000})
	cases := []struct {
		name    string
		path    string
		isErr   bool
		want    []string
		notWant []string
	}{
		{"html to markdown", "/page", false, []string{"# Hello World", "**bold**", "[link](" + srv.URL + "/docs)", "- one"}, []string{"<p>", "var x"}},
		{"plain text", "/plain", false, []string{"just text"}, nil},
		{"json", "/json", false, []string{`{"a":1}`}, nil},
		{"size limit cuts", "/big", false, []string{"was cut"}, nil},
		{"binary refused", "/image", true, []string{"not text"}, nil},
		{"http error", "/missing", true, []string{"404"}, nil},
		{"same-host redirect followed", "/same", false, []string{"just text"}, nil},
		{"cross-host redirect reported", "/away", false, []string{"REDIRECT DETECTED", "https://example.org/elsewhere"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, f, map[string]any{"url": srv.URL + tc.path, "prompt": "summarize"})
			if res.IsError != tc.isErr {
				t.Fatalf("IsError=%v: %s", res.IsError, res.Content)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("content lacks %q:\n%s", w, res.Content)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(res.Content, w) {
					t.Errorf("content has %q:\n%s", w, res.Content)
				}
			}
		})
	}
}

func TestWebFetchInvalidInput(t *testing.T) {
	f := NewWebFetch(FetchConfig{})
	cases := []struct{ name, input, want string }{
		{"missing url", `{"prompt":"p"}`, `"url" is missing`},
		{"missing prompt", `{"url":"https://example.com"}`, `"prompt" is missing`},
		{"ftp", `{"url":"ftp://example.com/x","prompt":"p"}`, "only http and https"},
		{"file", `{"url":"file:///etc/passwd","prompt":"p"}`, "only http and https"},
		{"no host", `{"url":"https:///x","prompt":"p"}`, "has no host"},
		{"relative", `{"url":"example.com/x","prompt":"p"}`, "only http and https"},
		{"credentials", `{"url":"https://user:pw@example.com/","prompt":"p"}`, "user name or password"},
		{"too long", `{"url":"https://example.com/` + strings.Repeat("a", 2100) + `","prompt":"p"}`, "characters long"},
		{"loopback literal", `{"url":"http://127.0.0.1:9/x","prompt":"p"}`, "local or private"},
		{"metadata address", `{"url":"http://169.254.169.254/latest","prompt":"p"}`, "local or private"},
		{"localhost", `{"url":"http://localhost/","prompt":"p"}`, "local or private"},
		{"ipv6 loopback", `{"url":"http://[::1]:80/","prompt":"p"}`, "local or private"},
		{"url not string", `{"url":5,"prompt":"p"}`, "must be a string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, f, tc.input)
			if !res.IsError || !strings.Contains(res.Content, tc.want) {
				t.Fatalf("got %+v, want %q", res, tc.want)
			}
		})
	}
}

// The dial-time check catches names that resolve to private addresses,
// which a check of the URL alone cannot see.
func TestWebFetchRefusesPrivateAtDial(t *testing.T) {
	srv := testServer(t, nil)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	client := guardedClient(false, defaultTimeout, sameHostRedirects)
	_, err := client.Get("http://127.0.0.1:" + port + "/plain")
	var blocked *blockedError
	if !errors.As(err, &blocked) || blocked.kind != "loopback" {
		t.Fatalf("dial to loopback: err %v", err)
	}
	// A hostname (not a literal) that resolves to loopback.
	_, err = client.Get("http://localtest.invalid.localhost:" + port + "/plain")
	if err == nil {
		t.Fatal("fetch through a name resolving to loopback succeeded")
	}
}

func TestWebFetchCache(t *testing.T) {
	var hits atomic.Int64
	srv := testServer(t, &hits)
	f := NewWebFetch(FetchConfig{AllowPrivate: true})
	for i := 0; i < 3; i++ {
		res := call(t, f, map[string]any{"url": srv.URL + "/page", "prompt": "p"})
		if res.IsError {
			t.Fatal(res.Content)
		}
		if i > 0 && res.Meta["cached"] != true {
			t.Errorf("call %d not cached", i)
		}
	}
	if hits.Load() != 1 {
		t.Fatalf("server hit %d times", hits.Load())
	}
}

type fakeSummarizer struct {
	gotPrompt, gotContent string
	err                   error
}

func (f *fakeSummarizer) Summarize(_ context.Context, prompt, content string) (string, error) {
	f.gotPrompt, f.gotContent = prompt, content
	return "SUMMARY", f.err
}

func TestWebFetchSummarizer(t *testing.T) {
	srv := testServer(t, nil)
	s := &fakeSummarizer{}
	res := call(t, NewWebFetch(FetchConfig{AllowPrivate: true, Summarizer: s}), map[string]any{"url": srv.URL + "/page", "prompt": "what is the title?"})
	if res.Content != "SUMMARY" || s.gotPrompt != "what is the title?" || !strings.Contains(s.gotContent, "# Hello World") {
		t.Fatalf("content %q, prompt %q", res.Content, s.gotPrompt)
	}
	s.err = errors.New("model down")
	res = call(t, NewWebFetch(FetchConfig{AllowPrivate: true, Summarizer: s}), map[string]any{"url": srv.URL + "/page", "prompt": "p"})
	if !strings.Contains(res.Content, "Hello World") || !strings.Contains(res.Content, "model down") {
		t.Fatalf("fallback content %q", res.Content)
	}
}

func TestWebFetchUpgradesHTTP(t *testing.T) {
	f := NewWebFetch(FetchConfig{})
	u, err := f.checkURL("http://example.com/a#frag")
	if err != nil || u.String() != "https://example.com/a" {
		t.Fatalf("got %v %v", u, err)
	}
	f = NewWebFetch(FetchConfig{AllowPrivate: true})
	if u, _ := f.checkURL("http://127.0.0.1:8080/"); u.Scheme != "http" {
		t.Fatalf("local host upgraded: %v", u)
	}
}
