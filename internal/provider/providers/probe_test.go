package providers

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

func TestProbeHealthyModelList(t *testing.T) {
	srv, url := testfiles.Scripted(t, scripted.Script{RequireKey: "k", Models: []string{"claude-a", "claude-b"}})
	for _, cfg := range []provider.Config{
		{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"},
		{Name: "openai", Kind: provider.KindOpenAI, BaseURL: url + "/v1", APIKey: "k"},
	} {
		p := ProbeProvider(context.Background(), cfg, "claude-b")
		if !p.OK || !p.Reachable || !p.Authenticated || p.Models != 2 || p.Method != "models" ||
			p.ModelAvailable == nil || !*p.ModelAvailable || p.HTTPStatus != 200 {
			t.Errorf("%s: %+v", cfg.Kind, p)
		}
		p = ProbeProvider(context.Background(), cfg, "claude-gone")
		if p.OK || p.ModelAvailable == nil || *p.ModelAvailable || !strings.Contains(p.Error, "claude-gone") {
			t.Errorf("%s with a missing model: %+v", cfg.Kind, p)
		}
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].Path != "/v1/models" || reqs[0].Header.Get("X-Api-Key") != "k" || reqs[0].Header.Get("Anthropic-Version") == "" {
		t.Errorf("anthropic request: %+v", reqs)
	}
}

func TestProbeRefusedKey(t *testing.T) {
	_, url := testfiles.Scripted(t, scripted.Script{RequireKey: "right"})
	p := ProbeProvider(context.Background(), provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "wrong"}, "")
	if p.OK || !p.Reachable || p.Authenticated || p.HTTPStatus != 401 || p.Error == "" {
		t.Errorf("%+v", p)
	}
}

func TestProbeUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a closed port: connection refused
	p := ProbeProvider(context.Background(), provider.Config{Name: "local", Kind: provider.KindOpenAICompatible, BaseURL: "http://" + addr + "/v1"}, "m")
	if p.OK || p.Reachable || p.Authenticated || p.Error == "" {
		t.Errorf("%+v", p)
	}
}

// A server without a model list is checked with a one-token call.
func TestProbeWithoutModelListCallsTheModel(t *testing.T) {
	srv := scripted.New(scripted.Script{Steps: []scripted.Step{scripted.TextStep("pong")}})
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	p := ProbeProvider(context.Background(), provider.Config{Name: "local", Kind: provider.KindOpenAICompatible, BaseURL: ts.URL + "/v1"}, "m")
	if !p.OK || p.Method != "call" || p.ModelAvailable == nil || !*p.ModelAvailable {
		t.Errorf("%+v", p)
	}
	var reqs []scripted.Request
	for _, r := range srv.Requests() {
		if r.API == scripted.APIOpenAI {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 1 || (reqs[0].Body["max_tokens"] == nil && reqs[0].Body["max_completion_tokens"] == nil) {
		t.Errorf("the call: %+v", reqs)
	}
}

// Gemini lists {"models": [{"name": "models/..."}]} under the v1beta base,
// with the key in x-goog-api-key.
func TestProbeGeminiModelList(t *testing.T) {
	var key, path string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, path = r.Header.Get("X-Goog-Api-Key"), r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"models":[{"name":"models/gemini-2.5-pro"},{"name":"models/gemini-2.5-flash"}]}`))
	}))
	t.Cleanup(ts.Close)
	p := ProbeProvider(context.Background(), provider.Config{Name: "gemini", Kind: provider.KindGemini, BaseURL: ts.URL + "/v1beta", APIKey: "g"}, "gemini-2.5-flash")
	if !p.OK || p.Models != 2 || p.ModelAvailable == nil || !*p.ModelAvailable || key != "g" || path != "/v1beta/models" {
		t.Errorf("%+v key %q path %q", p, key, path)
	}
}
