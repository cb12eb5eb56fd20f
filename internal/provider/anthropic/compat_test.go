package anthropic

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// recordedCLI is the sanitized first request of the real Claude Code CLI.
type recordedCLI struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   string            `json:"query"`
	Headers map[string]string `json:"headers"`
	Body    struct {
		Metadata struct {
			UserID string `json:"user_id"`
		} `json:"metadata"`
		System        []map[string]any `json:"system"`
		Stream        bool             `json:"stream"`
		FirstUserText string           `json:"first_user_text"`
	} `json:"body"`
}

func loadRecordedCLI(t *testing.T) recordedCLI {
	t.Helper()
	raw, err := os.ReadFile("testdata/claude-code-" + ClaudeCodeVersion + "-request.json")
	if err != nil {
		t.Fatalf("recording for the pinned version: %v", err)
	}
	var r recordedCLI
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// compatRequest sends prompt through a claude-code-compat adapter to the
// scripted server and returns what the server received.
func compatRequest(t *testing.T, installID, prompt string) scripted.Request {
	t.Helper()
	srv, url := testfiles.Scripted(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	p, err := New(provider.Config{Name: "proxy", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k",
		Transport: provider.TransportClaudeCodeCompat, InstallID: installID})
	if err != nil {
		t.Fatal(err)
	}
	req := provider.Request{Model: "claude-sonnet-4-5", System: []string{"tandem's own instructions"},
		Messages: []message.Message{{Role: message.User, Content: []message.Block{{Type: message.Text, Text: prompt}}}},
		Tools:    []provider.ToolSpec{{Name: "Read", Description: "read", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Headers:  map[string]string{"anthropic-beta": "web-search-2025-03-05"}}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.MainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	return reqs[0]
}

// TestClaudeCodeCompatMatchesRecordedCLI compares, field by field, what the
// compat transport sends with what Claude Code sent, on every field such
// proxies check (docs/decisions/claude-code-compat.md).
func TestClaudeCodeCompatMatchesRecordedCLI(t *testing.T) {
	cli := loadRecordedCLI(t)
	got := compatRequest(t, "install-1", cli.Body.FirstUserText)
	if got.Method != cli.Method || got.Path != cli.Path || got.Query != cli.Query {
		t.Errorf("request line %s %s?%s, CLI %s %s?%s", got.Method, got.Path, got.Query, cli.Method, cli.Path, cli.Query)
	}
	for _, h := range []string{"user-agent", "x-app", "anthropic-version", "anthropic-dangerous-direct-browser-access",
		"x-stainless-lang", "x-stainless-package-version", "x-stainless-runtime", "x-stainless-runtime-version",
		"x-stainless-timeout", "x-stainless-retry-count", "x-stainless-os", "x-stainless-arch", "content-type", "accept"} {
		if g, w := got.Header.Get(h), cli.Headers[h]; g != w {
			t.Errorf("header %s = %q, CLI sent %q", h, g, w)
		}
	}
	// Every beta flag of the CLI's, in its order, then the request's own.
	if g, w := got.Header.Get("anthropic-beta"), cli.Headers["anthropic-beta"]+",web-search-2025-03-05"; g != w {
		t.Errorf("anthropic-beta = %q, want %q", g, w)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	session := got.Header.Get("x-claude-code-session-id")
	if !uuid.MatchString(session) || !uuid.MatchString(cli.Headers["x-claude-code-session-id"]) {
		t.Errorf("x-claude-code-session-id %q (CLI %q) is not a UUID", session, cli.Headers["x-claude-code-session-id"])
	}
	if got.Header.Get("x-api-key") != "k" {
		t.Errorf("x-api-key %q", got.Header.Get("x-api-key"))
	}

	if s, _ := got.Body["stream"].(bool); s != cli.Body.Stream {
		t.Errorf("stream = %v", got.Body["stream"])
	}
	sys, _ := got.Body["system"].([]any)
	if len(sys) != 3 {
		t.Fatalf("system blocks: %v", got.Body["system"])
	}
	// The billing block and the preamble are the CLI's exactly, with the
	// same prompt (so the same fingerprint), cache_control included.
	for i := 0; i < 2; i++ {
		if !reflect.DeepEqual(sys[i], any(cli.Body.System[i])) {
			t.Errorf("system[%d] = %v, CLI sent %v", i, sys[i], cli.Body.System[i])
		}
	}
	if b, _ := sys[2].(map[string]any); b["text"] != "tandem's own instructions" || b["cache_control"] == nil {
		t.Errorf("tandem's system block: %v", sys[2])
	}

	var gotID, cliID map[string]string
	meta, _ := got.Body["metadata"].(map[string]any)
	uid, _ := meta["user_id"].(string)
	if err := json.Unmarshal([]byte(uid), &gotID); err != nil {
		t.Fatalf("metadata.user_id %q is not the CLI's JSON form: %v", uid, err)
	}
	if err := json.Unmarshal([]byte(cli.Body.Metadata.UserID), &cliID); err != nil {
		t.Fatal(err)
	}
	if !sameKeys(gotID, cliID) {
		t.Errorf("user_id keys %v, CLI %v", gotID, cliID)
	}
	hex64 := regexp.MustCompile(`^[0-9a-f]{64}$`)
	if !hex64.MatchString(gotID["device_id"]) || gotID["account_uuid"] != "" || gotID["session_id"] != session {
		t.Errorf("user_id %v (session header %s)", gotID, session)
	}
}

func sameKeys(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// TestClaudeCodeCompatDeviceIDStablePerInstall: the same install id gives
// the same device id across adapters; another install another one; the id
// itself is not sent.
func TestClaudeCodeCompatDeviceIDStablePerInstall(t *testing.T) {
	device := func(install string) string {
		r := compatRequest(t, install, "hello")
		meta, _ := r.Body["metadata"].(map[string]any)
		uid, _ := meta["user_id"].(string)
		if strings.Contains(string(r.RawBody), install) {
			t.Errorf("install id %q sent", install)
		}
		var id map[string]string
		_ = json.Unmarshal([]byte(uid), &id)
		return id["device_id"]
	}
	a1, a2, b := device("install-aaaa"), device("install-aaaa"), device("install-bbbb")
	if a1 == "" || a1 != a2 || a1 == b {
		t.Errorf("device ids %q %q %q", a1, a2, b)
	}
}

// TestStandardTransportSendsNoClaudeCodeShape: without the setting nothing
// of Claude Code's is sent.
func TestStandardTransportSendsNoClaudeCodeShape(t *testing.T) {
	srv, url := testfiles.Scripted(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
	req := provider.Request{Model: "claude-sonnet-4-5", System: []string{"sys"},
		Messages: []message.Message{{Role: message.User, Content: []message.Block{{Type: message.Text, Text: "hi"}}}}}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if strings.HasPrefix(r.Header.Get("user-agent"), "claude-cli/") || r.Header.Get("x-app") != "" || r.Query != "" ||
		strings.Contains(string(r.RawBody), claudeCodePreamble) || r.Body["metadata"] != nil {
		t.Errorf("standard request carries Claude Code's shape: %v %s", r.Header, r.RawBody)
	}
}

func TestFingerprintMatchesCLI(t *testing.T) {
	// The recorded CLI prompt "read a.txt" gave cc_version=2.1.332.28c.
	if got := fingerprint("read a.txt"); got != "28c" {
		t.Errorf("fingerprint = %q, want 28c", got)
	}
}
