package scripted

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		name, json, wantErr string
	}{
		{"unknown step field", `{"steps":[{"text":"a"},{"txt":"b"}]}`, `steps[1]: json: unknown field "txt"`},
		{"unknown fault field", `{"steps":[{"fault":{"statuss":429}}]}`, `steps[0]: json: unknown field "statuss"`},
		{"missing tool name", `{"steps":[{"tool_calls":[{"input":{}}]}]}`, `steps[0].tool_calls[0].name: required`},
		{"input not object", `{"steps":[{"tool_calls":[{"name":"Read","input":[1]}]}]}`, `steps[0].tool_calls[0].input: must be a JSON object`},
		{"bad status", `{"steps":[{"fault":{"status":200}}]}`, `steps[0].fault.status: must be an HTTP error status`},
		{"bad retry_after", `{"steps":[{"fault":{"status":429,"retry_after":"soon"}}]}`, `steps[0].fault.retry_after`},
		{"empty fault", `{"steps":[{"fault":{"times":2}}]}`, `steps[0].fault: sets nothing`},
		{"wrong type", `{"steps":[{"text":5}]}`, `steps[0]: field "text" at line 1 column`},
		{"syntax", "{\"steps\": [\n  {\"text\": \"a\",}\n]}", `invalid JSON at line 2`},
		{"bad fallback", `{"fallback":{"tool_calls":[{}]}}`, `fallback.tool_calls[0].name`},
		{"bad pattern", `{"side_model_pattern":"(("}`, `side_model_pattern: not a valid regular expression`},
		{"trailing data", `{"steps":[]} {}`, `unexpected data after the JSON value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScript([]byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestLoadScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "script.json")
	data := `{
  "steps": [
    {"text": "Let me read it.", "tool_calls": [{"id": "toolu_x", "name": "Read", "input": {"file_path": "a.go"}}]},
    {"thinking": "ok", "text": "Done.", "usage": {"input_tokens": 10, "output_tokens": 5}, "stop_reason": "end_turn",
     "fault": {"status": 529, "retry_after": "0.1", "times": 2}}
  ],
  "fallback": {"text": "ok"},
  "side_model_pattern": "", "side_without_tools": false, "require_key": "k", "models": ["m"], "chunk_size": 5
}`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 2 || s.Steps[0].ToolCalls[0].ID != "toolu_x" || string(s.Steps[0].ToolCalls[0].Input) != `{"file_path": "a.go"}` ||
		s.Steps[1].Fault.times() != 2 || s.Steps[1].Usage.OutputTokens != 5 || s.Fallback.Text != "ok" ||
		*s.SideModelPattern != "" || *s.SideWithoutTools || s.RequireKey != "k" || s.ChunkSize != 5 {
		t.Errorf("script = %+v", s)
	}
	if _, err := LoadScript(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "load script") {
		t.Errorf("missing file err = %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"steps":[{"bogus":1}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScript(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "steps[0]") {
		t.Errorf("bad file err = %v", err)
	}
}

func TestSplitChunks(t *testing.T) {
	tests := []struct {
		in   string
		size int
	}{
		{"", 4}, {"a", 4}, {"hello world this is text", 4}, {"ünïcödé ünïcödé", 3}, {strings.Repeat("x", 50), 4},
	}
	for _, tt := range tests {
		pieces := splitChunks(tt.in, tt.size)
		if strings.Join(pieces, "") != tt.in {
			t.Errorf("%q: pieces %q do not join back", tt.in, pieces)
		}
		for _, p := range pieces {
			if len(p) > 3*tt.size+4 || !isValidUTF8(p) {
				t.Errorf("%q: bad piece %q", tt.in, p)
			}
		}
	}
	if n := len(splitChunks(strings.Repeat("word ", 20), 8)); n < 5 {
		t.Errorf("long text split into only %d pieces", n)
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
