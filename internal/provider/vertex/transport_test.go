package vertex

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem/internal/provider/vertex/vertextest"
)

type seen struct {
	mu     sync.Mutex
	reqs   []*http.Request
	paths  []string
	bodies [][]byte
}

func (s *seen) server(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, r)
		s.paths = append(s.paths, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		s.bodies = append(s.bodies, b)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {}\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, tr http.RoundTripper, url, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("X-Api-Key", "must-not-leak")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// A service-account key file drives the real JWT-bearer flow against a
// local token endpoint; the token is cached across calls and both wire
// protocols are pointed at the project's publisher paths.
func TestServiceAccountTokenAndPaths(t *testing.T) {
	ts := vertextest.NewTokenServer(t)
	var s seen
	api := s.server(t)
	tr := NewTransport(Options{Location: "us-east5", CredentialsFile: ts.File, Endpoint: api.URL})

	post(t, tr, api.URL+"/v1/messages", `{"model":"claude-sonnet-4-5@20250929","stream":true,"max_tokens":5,"messages":[]}`)
	post(t, tr, api.URL+"/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[]}`)

	if p := ts.Problems(); len(p) > 0 {
		t.Fatalf("token server refused: %v", p)
	}
	if ts.Issued() != 1 {
		t.Errorf("tokens issued = %d, want 1 (cached)", ts.Issued())
	}
	wantPaths := []string{
		"/v1/projects/tandem-test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict?",
		"/v1/projects/tandem-test-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
	}
	for i, want := range wantPaths {
		if s.paths[i] != want {
			t.Errorf("path %d = %s, want %s", i, s.paths[i], want)
		}
		h := s.reqs[i].Header
		if h.Get("Authorization") != "Bearer "+vertextest.Token(1) || h.Get("X-Api-Key") != "" || (i == 0 && h.Get("Anthropic-Version") != "") {
			t.Errorf("headers %d: %v", i, h)
		}
	}
	var body map[string]any
	if err := json.Unmarshal(s.bodies[0], &body); err != nil {
		t.Fatal(err)
	}
	if _, has := body["model"]; has || body["anthropic_version"] != AnthropicVersion || body["stream"] != true {
		t.Errorf("anthropic body: %s", s.bodies[0])
	}
	if !bytes.Equal(s.bodies[1], []byte(`{"contents":[]}`)) {
		t.Errorf("gemini body changed: %s", s.bodies[1])
	}
}

// A token about to expire is replaced before the next call.
func TestTokenRefreshed(t *testing.T) {
	ts := vertextest.NewTokenServer(t)
	ts.ExpiresIn = 1 // inside oauth2's early-expiry window: stale at once
	var s seen
	api := s.server(t)
	tr := NewTransport(Options{Project: "p", CredentialsFile: ts.File, Endpoint: api.URL})
	post(t, tr, api.URL+"/models/gemini-2.5-flash:streamGenerateContent", `{}`)
	post(t, tr, api.URL+"/models/gemini-2.5-flash:streamGenerateContent", `{}`)
	if got := s.reqs[1].Header.Get("Authorization"); got != "Bearer "+vertextest.Token(2) {
		t.Errorf("second call's token = %q, want a refreshed one", got)
	}
	if !strings.HasPrefix(s.paths[0], "/v1/projects/p/locations/global/") {
		t.Errorf("configured project and default location: %s", s.paths[0])
	}
}

// Calls that cannot be authenticated never leave the machine and come back
// as the API's own error answers, in the caller's dialect.
func TestCredentialFailuresAnswerLocally(t *testing.T) {
	var s seen
	api := s.server(t)
	ts := vertextest.NewTokenServer(t)

	cases := []struct {
		name   string
		opt    Options
		url    string
		status int
		want   string
	}{
		{"missing file", Options{Project: "p", CredentialsFile: "/nonexistent/sa.json"}, "/v1/messages", 401, `"authentication_error"`},
		{"missing file gemini", Options{Project: "p", CredentialsFile: "/nonexistent/sa.json"}, "/models/g:streamGenerateContent", 401, `"UNAUTHENTICATED"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opt.Endpoint = api.URL
			resp := post(t, NewTransport(c.opt), api.URL+c.url, `{"model":"claude-x"}`)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || !strings.Contains(string(b), c.want) || !strings.Contains(string(b), "credentials_file") {
				t.Errorf("%d %s", resp.StatusCode, b)
			}
		})
	}
	t.Run("token refused", func(t *testing.T) {
		ts.Close() // the token endpoint is gone: a transport error, retryable
		req, _ := http.NewRequest(http.MethodPost, api.URL+"/v1/messages", strings.NewReader(`{"model":"claude-x"}`))
		_, err := NewTransport(Options{Project: "p", CredentialsFile: ts.File, Endpoint: api.URL}).RoundTrip(req)
		if err == nil || !strings.Contains(err.Error(), "access token") {
			t.Errorf("err = %v", err)
		}
	})
	if len(s.reqs) != 0 {
		t.Errorf("%d requests reached the API", len(s.reqs))
	}
}

func TestEndpointByLocation(t *testing.T) {
	for loc, want := range map[string]string{
		"":         "https://aiplatform.googleapis.com",
		"global":   "https://aiplatform.googleapis.com",
		"us-east5": "https://us-east5-aiplatform.googleapis.com",
		"eu":       "https://aiplatform.eu.rep.googleapis.com",
	} {
		if got := NewTransport(Options{Location: loc}).Endpoint(); got != want {
			t.Errorf("%q: %s, want %s", loc, got, want)
		}
	}
}
