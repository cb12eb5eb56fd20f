// Package providertest holds what the adapters' tests share: recorded provider
// traffic (go-vcr cassettes) replayed by a local server, SSE framing of
// recorded JSON bodies, and small request helpers. Only tests import it.
package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// Cassette is the part of a go-vcr v2 Cassette the tests use.
type Cassette struct {
	Interactions []struct {
		Request struct {
			Body string `yaml:"body"`
			URL  string `yaml:"url"`
		} `yaml:"request"`
		Response struct {
			Body    string              `yaml:"body"`
			Headers map[string][]string `yaml:"headers"`
			Code    int                 `yaml:"code"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

// RecordingsDir finds shared/fixtures/provider-recordings beside the
// checkout (as CI lays it out): found from the module's root, so it does
// not depend on the test's package depth or on where the workplace sits;
// TANDEM_PROVIDER_RECORDINGS points elsewhere.
func RecordingsDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("TANDEM_PROVIDER_RECORDINGS"); d != "" {
		return d
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var tried []string
	for _, checkout := range []string{root, mainCheckout(root)} {
		if checkout == "" {
			continue
		}
		d := filepath.Join(filepath.Dir(checkout), "shared", "fixtures", "provider-recordings")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		tried = append(tried, d)
	}
	t.Fatalf("provider recordings not found at %s: lay shared/fixtures beside the checkout, or set TANDEM_PROVIDER_RECORDINGS", strings.Join(tried, " or "))
	return ""
}

// mainCheckout is, for a linked git worktree, the checkout that owns it
// (its .git file says "gitdir: MAIN/.git/worktrees/NAME"), so a worktree
// finds the fixtures beside its main checkout; "" otherwise.
func mainCheckout(root string) string {
	b, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return "" // a folder (a plain checkout) or no git at all
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return ""
	}
	for dir := filepath.Clean(gitdir); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) == ".git" {
			return filepath.Dir(dir)
		}
	}
	return ""
}

// moduleRoot is the nearest folder at or above the working folder (a
// test's package folder) holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's folder: run the tests inside the checkout")
		}
		dir = parent
	}
}

func LoadCassette(t *testing.T, rel string) Cassette {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(RecordingsDir(t), rel))
	if err != nil {
		t.Fatalf("read Cassette: %v", err)
	}
	var c Cassette
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("parse Cassette %s: %v", rel, err)
	}
	if len(c.Interactions) == 0 {
		t.Fatalf("cassette %s has no interactions", rel)
	}
	return c
}

// ReplayServer answers the n-th request with the n-th recorded response
// and keeps what was sent.
type ReplayServer struct {
	*httptest.Server
	mu      sync.Mutex
	Bodies  [][]byte
	Headers []http.Header
	Paths   []string
}

func NewReplayServer(t *testing.T, c Cassette, transform func(string) (string, string)) *ReplayServer {
	t.Helper()
	rs := &ReplayServer{}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rs.mu.Lock()
		n := len(rs.Bodies)
		rs.Bodies = append(rs.Bodies, body)
		rs.Headers = append(rs.Headers, r.Header.Clone())
		rs.Paths = append(rs.Paths, r.URL.Path)
		rs.mu.Unlock()
		if n >= len(c.Interactions) {
			http.Error(w, `{"error":{"message":"unexpected extra request"}}`, 500)
			return
		}
		resp := c.Interactions[n].Response
		out, ctype := resp.Body, ""
		if transform != nil {
			out, ctype = transform(out)
		}
		for k, vs := range resp.Headers {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		code := resp.Code
		if code == 0 {
			code = 200
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, out)
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *ReplayServer) Body(i int) []byte {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if i >= len(rs.Bodies) {
		return nil
	}
	return rs.Bodies[i]
}

// normalize decodes a JSON body for comparison, dropping the given keys at
// any depth.
func normalize(t *testing.T, body []byte, drop ...string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range drop {
				delete(x, k)
			}
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	return walk(v)
}

func AssertSameJSON(t *testing.T, what string, got, want []byte, drop ...string) {
	t.Helper()
	g, w := normalize(t, got, drop...), normalize(t, want, drop...)
	if !reflect.DeepEqual(g, w) {
		gj, _ := json.MarshalIndent(g, "", " ")
		wj, _ := json.MarshalIndent(w, "", " ")
		t.Errorf("%s: request body differs from the recorded one\n--- sent:\n%s\n--- recorded:\n%s", what, gj, wj)
	}
}

// recordedCall is what the tests take from a recorded request: enough to
// rebuild the same call through the adapter.
type recordedCall struct {
	Model     string
	MaxTokens int64
	System    []string
	User      string
	Tools     []provider.ToolSpec
	Thinking  int64
	Effort    string
	// tool results of the follow-up request, by tool-use id
	Results map[string]string
}

func parseAnthropicRequest(t *testing.T, body string) recordedCall {
	t.Helper()
	var r struct {
		Model     string `json:"model"`
		MaxTokens int64  `json:"max_tokens"`
		System    []struct {
			Text string `json:"text"`
		} `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				Text      string `json:"text"`
				ToolUseID string `json:"tool_use_id"`
				Content   []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		Thinking struct {
			Budget int64 `json:"budget_tokens"`
		} `json:"thinking"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("recorded anthropic request: %v", err)
	}
	rc := recordedCall{Model: r.Model, MaxTokens: r.MaxTokens, Thinking: r.Thinking.Budget, Results: map[string]string{}}
	for _, s := range r.System {
		rc.System = append(rc.System, s.Text)
	}
	for _, m := range r.Messages {
		for _, c := range m.Content {
			switch {
			case m.Role == "user" && c.Type == "text" && rc.User == "":
				rc.User = c.Text
			case c.Type == "tool_result" && len(c.Content) > 0:
				rc.Results[c.ToolUseID] = c.Content[0].Text
			}
		}
	}
	for _, tl := range r.Tools {
		rc.Tools = append(rc.Tools, provider.ToolSpec{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
	}
	return rc
}

func parseOpenAIRequest(t *testing.T, body string) recordedCall {
	t.Helper()
	var r struct {
		Model     string `json:"model"`
		MaxTokens int64  `json:"max_tokens"`
		MaxCompl  int64  `json:"max_completion_tokens"`
		Effort    string `json:"reasoning_effort"`
		Messages  []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("recorded openai request: %v", err)
	}
	rc := recordedCall{Model: r.Model, MaxTokens: max(r.MaxTokens, r.MaxCompl), Effort: r.Effort, Results: map[string]string{}}
	for _, m := range r.Messages {
		s, _ := m.Content.(string)
		switch m.Role {
		case "system":
			rc.System = append(rc.System, s)
		case "user":
			if rc.User == "" {
				rc.User = s
			}
		case "tool":
			rc.Results[m.ToolCallID] = s
		}
	}
	for _, tl := range r.Tools {
		rc.Tools = append(rc.Tools, provider.ToolSpec{Name: tl.Function.Name, Description: tl.Function.Description, InputSchema: tl.Function.Parameters})
	}
	return rc
}

// ReplayRun is the outcome of replaying one Cassette through an adapter.
type ReplayRun struct {
	Server    *ReplayServer
	Responses []*provider.Response
	Deltas    [][]provider.Delta
	Requests  []provider.Request
}

// replay drives the conversation a Cassette recorded: the first call, then
// (if recorded) a second call carrying the first response and the recorded
// tool results. Each sent body is compared with the recorded one.
// ReplayOpts tunes one replay: transform re-frames served bodies, drop
// names keys ignored in the body comparison, and skip lists calls whose
// recorded body is known to differ (with the reason at the call site).
type ReplayOpts struct {
	Transform func(string) (string, string)
	Drop      []string
	Skip      map[int]bool
	// Model is the model to ask for when the recorded body names none (the
	// clouds carry it in the URL).
	Model string
	// Configure adjusts the provider config before it is built (cloud
	// settings, credentials).
	Configure func(*provider.Config)
}

func Replay(t *testing.T, newProvider func(provider.Config) (provider.Provider, error), rel string, kind, name string, o ReplayOpts) ReplayRun {
	t.Helper()
	c := LoadCassette(t, rel)
	rs := NewReplayServer(t, c, o.Transform)
	messages := kind == provider.KindAnthropic || provider.CloudKind(kind)
	base := rs.URL
	if !messages {
		base += "/v1"
	}
	cfg := provider.Config{Name: name, Kind: kind, BaseURL: base, APIKey: "test-key"}
	if o.Configure != nil {
		o.Configure(&cfg)
	}
	p, err := newProvider(cfg)
	if err != nil {
		t.Fatal(err)
	}
	parse := parseOpenAIRequest
	if messages {
		parse = parseAnthropicRequest
	}
	first := parse(t, c.Interactions[0].Request.Body)
	if first.Model == "" {
		first.Model = o.Model
	}
	req := provider.Request{
		Model: first.Model, System: first.System, Tools: first.Tools,
		MaxTokens: first.MaxTokens, ThinkingBudget: first.Thinking, Effort: first.Effort,
		Messages: []message.Message{{ID: "u1", Role: message.User, Content: []message.Block{message.TextBlock(first.User)}}},
	}
	run := ReplayRun{Server: rs}
	for i := range c.Interactions {
		var deltas []provider.Delta
		resp, err := p.Stream(context.Background(), req, func(d provider.Delta) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		run.Responses = append(run.Responses, resp)
		run.Deltas = append(run.Deltas, deltas)
		run.Requests = append(run.Requests, req)
		wantBody := []byte(c.Interactions[i].Request.Body)
		if !o.Skip[i] {
			AssertSameJSON(t, rel+" call "+string(rune('0'+i)), rs.Body(i), wantBody, o.Drop...)
		}
		if i+1 == len(c.Interactions) {
			break
		}
		next := parse(t, c.Interactions[i+1].Request.Body)
		var results []message.Block
		for _, tu := range (message.Message{Content: resp.Content}).ToolUses() {
			out, ok := next.Results[tu.ID]
			if !ok {
				t.Fatalf("call %d: tool_use %s has no recorded result", i, tu.ID)
			}
			results = append(results, message.Block{Type: message.ToolResult, ToolUseID: tu.ID, Content: []message.Block{message.TextBlock(out)}})
		}
		req.Messages = append(req.Messages,
			message.Message{ID: "a", Role: message.Assistant, Content: resp.Content},
			message.Message{ID: "r", Role: message.User, Content: results})
	}
	return run
}

// textOf joins the text blocks of a response.
func TextOf(r *provider.Response) string {
	return message.Message{Content: r.Content}.PlainText()
}

func DeltaString(ds []provider.Delta, kind provider.DeltaKind) string {
	var b strings.Builder
	for _, d := range ds {
		if d.Kind == kind {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func FixtureExists(t *testing.T, rel string) bool {
	_, err := os.Stat(filepath.Join(RecordingsDir(t), rel))
	return err == nil
}
