package app

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
	"github.com/tandem-agent/tandem/internal/tools/web"
)

// recordedWebSearch serves Anthropic's real recorded web-search stream and
// keeps the request body.
func recordedWebSearch(t *testing.T) (*httptest.Server, *[]byte) {
	t.Helper()
	path := filepath.Join(providertest.RecordingsDir(t), "TestAnthropicWebSearch", "stream.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Interactions []struct {
			Response struct {
				Body string `yaml:"body"`
			} `yaml:"response"`
		} `yaml:"interactions"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	var sent []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, c.Interactions[0].Response.Body)
	}))
	t.Cleanup(srv.Close)
	return srv, &sent
}

func TestNativeSearcherUsesAnthropicWebSearch(t *testing.T) {
	srv, sent := recordedWebSearch(t)
	env := map[string]string{"HOME": t.TempDir(), "TANDEM_HOME": t.TempDir(), "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	a, err := Open(Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	n := nativeSearcher{app: a, cfg: &config.Config{}, spec: func() (string, error) { return "anthropic/claude-sonnet-4", nil }}
	res, err := n.Search(context.Background(), "population of Tokyo", web.SearchOptions{AllowedDomains: []string{"wikipedia.org"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) < 3 || res[0].URL == "" || res[0].Title == "" {
		t.Fatalf("results: %+v", res)
	}
	snippets := 0
	for _, r := range res {
		if r.Snippet != "" {
			snippets++
		}
	}
	if snippets == 0 {
		t.Error("no cited passages in the snippets")
	}
	var body struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(*sent, &body); err != nil || len(body.Tools) != 1 {
		t.Fatalf("request tools: %s (%v)", *sent, err)
	}
	if body.Tools[0]["type"] != "web_search_20250305" || !strings.Contains(string(*sent), `"allowed_domains":["wikipedia.org"]`) {
		t.Errorf("server tool sent: %s", *sent)
	}
}

func TestNativeSearcherNeedsAnthropic(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir(), "TANDEM_HOME": t.TempDir(), "OPENAI_API_KEY": "k"}
	a, err := Open(Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	n := nativeSearcher{app: a, cfg: &config.Config{}, spec: func() (string, error) { return "openai/gpt-5", nil }}
	_, err = n.Search(context.Background(), "x", web.SearchOptions{})
	if err == nil || !strings.Contains(err.Error(), "BRAVE_API_KEY") {
		t.Fatalf("want the no-backend message, got %v", err)
	}
}
