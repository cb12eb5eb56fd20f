package cliproto

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
)

func TestParseFlags(t *testing.T) {
	f, warns, err := Parse([]string{"--output-format", "stream-json", "--verbose", "--input-format=stream-json",
		"--resume=abc", "--allowedTools", "Read,Bash(git log:*)", "--add-dir", "/a", "--add-dir", "/b",
		"--max-turns", "3", "--betas", "x", "--brand-new-flag", "--other=1", "--mcp-config", `{"mcpServers":{}}`, "-p", "do", "it"})
	if err != nil {
		t.Fatal(err)
	}
	if f.OutputFormat != "stream-json" || f.InputFormat != "stream-json" || !f.Verbose || f.Resume != "abc" || f.MaxTurns != 3 || !f.Print {
		t.Errorf("flags: %+v", f)
	}
	if !reflect.DeepEqual(f.AddDirs, []string{"/a", "/b"}) || !reflect.DeepEqual(f.Prompt, []string{"do", "it"}) || len(f.MCPConfigs) != 1 {
		t.Errorf("lists: %+v", f)
	}
	if got := splitTools(f.AllowedTools); !reflect.DeepEqual(got, []string{"Read", "Bash(git log:*)"}) {
		t.Errorf("allowed = %v", got)
	}
	joined := strings.Join(warns, "\n")
	for _, w := range []string{"--betas is ignored", "--brand-new-flag is not a flag", "--other is not a flag"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", joined, w)
		}
	}
	for _, bad := range [][]string{
		{"--output-format", "yaml"},
		{"--input-format", "stream-json"}, // needs stream-json output
		{"--resume", "a", "--continue"},
		{"--max-turns", "-1"},
		{"--permission-mode", "yolo"},
		{"--model"},
		{"--session-id", "123e4567-e89b-12d3-a456-426614174000", "--resume", "a"},
		{"--session-id", "../../.."}, // becomes a folder name: only a UUID
		{"--session-id", "u"},
	} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestEveryFlagIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/claude-code-cli.md")
	if err != nil {
		t.Fatal(err)
	}
	acted, ignored := KnownFlags()
	for _, f := range append(acted, ignored...) {
		if !bytes.Contains(doc, []byte("`"+f+"`")) {
			t.Errorf("docs/claude-code-cli.md does not list %s", f)
		}
	}
}

func TestModesMeanWhatTheyMeanInClaudeCode(t *testing.T) {
	for in, want := range map[string]permission.Mode{"default": permission.AskEdits, "acceptEdits": permission.AcceptEdits,
		"plan": permission.Explore, "bypassPermissions": permission.Trust, "dontAsk": permission.DontAsk, "trust": permission.Trust} {
		got, err := ParseMode(in)
		if err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", in, got, err, want)
		}
		if in != "trust" && modeName(got) != in {
			t.Errorf("modeName(%v) = %q, want %q", got, modeName(got), in)
		}
	}
}

func TestUserContent(t *testing.T) {
	in, err := userContent(json.RawMessage(`{"role":"user","content":"hi"}`))
	if err != nil || in.text != "hi" {
		t.Errorf("string content: %+v %v", in, err)
	}
	in, err = userContent(json.RawMessage(`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}`))
	if err != nil || in.text != "look" || len(in.images) != 1 || in.images[0].MediaType != "image/png" {
		t.Errorf("blocks: %+v %v", in, err)
	}
	for _, bad := range []string{`{"content":""}`, `{"content":[]}`, `{"content":42}`, `{"content":[{"type":"image","source":{"type":"url"}}]}`} {
		if _, err := userContent(json.RawMessage(bad)); err == nil {
			t.Errorf("userContent(%s) accepted", bad)
		}
	}
}

func TestControlAnswersReachTheirRequest(t *testing.T) {
	var out bytes.Buffer
	c := newControl(&writer{out: &out})
	if err := c.deliver(json.RawMessage(`{"type":"control_response","response":{"subtype":"success","request_id":"nobody","response":{}}}`)); err == nil {
		t.Error("an answer to no request was accepted")
	}
	done := make(chan error, 1)
	go func() {
		raw, err := c.request(t.Context(), "can_use_tool", map[string]any{"tool_name": "Bash"})
		if err == nil && string(raw) != `{"behavior":"allow"}` {
			err = errorString("answer " + string(raw))
		}
		done <- err
	}()
	var id string
	for id == "" {
		c.mu.Lock()
		for k := range c.pending {
			id = k
		}
		c.mu.Unlock()
	}
	if err := c.deliver(json.RawMessage(`{"type":"control_response","response":{"subtype":"success","request_id":"` + id + `","response":{"behavior":"allow"}}}`)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
	if !strings.Contains(out.String(), `"subtype":"can_use_tool"`) {
		t.Errorf("request line: %s", out.String())
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// A compaction is reported as Claude Code reports it.
func TestCompactBoundaryLine(t *testing.T) {
	var out strings.Builder
	d := &driver{f: Flags{OutputFormat: "stream-json"}, w: &writer{out: &out}}
	d.onEvent(event.Event{Type: event.CompactBoundary, SessionID: "s1", Trigger: "auto", TokensBefore: 160000, TokensAfter: 12000})
	var line struct {
		Type, Subtype, SessionID string
		Meta                     struct {
			Trigger    string `json:"trigger"`
			PreTokens  int64  `json:"pre_tokens"`
			PostTokens int64  `json:"post_tokens"`
		} `json:"compact_metadata"`
	}
	if err := json.Unmarshal([]byte(out.String()), &line); err != nil || line.Type != "system" || line.Subtype != "compact_boundary" ||
		line.Meta.Trigger != "auto" || line.Meta.PreTokens != 160000 || line.Meta.PostTokens != 12000 {
		t.Fatalf("line %s (%v)", out.String(), err)
	}
}

func TestParseFallbackModel(t *testing.T) {
	f, warns, err := Parse([]string{"--fallback-model", "sonnet,openai/gpt-5", "--fallback-model=haiku", "-p", "x"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{normalizeModel("sonnet"), "openai/gpt-5", normalizeModel("haiku")}
	if !reflect.DeepEqual(f.FallbackModels, want) || want[0] == "sonnet" {
		t.Errorf("fallback models %q, want %q", f.FallbackModels, want)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %q", warns)
	}
}

// --agents is acted on (it was once ignored): its value is kept for the
// driver to validate once tandem's config is open; --agent stays ignored.
func TestAgentsFlag(t *testing.T) {
	f, warns, err := Parse([]string{"-p", "hi", "--agents", `{"r":{"description":"d","prompt":"p"}}`, "--agent", "r"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Agents != `{"r":{"description":"d","prompt":"p"}}` {
		t.Errorf("Agents = %q", f.Agents)
	}
	joined := strings.Join(warns, "\n")
	if strings.Contains(joined, "--agents is") || !strings.Contains(joined, "--agent is ignored") {
		t.Errorf("warnings: %q", joined)
	}
}
