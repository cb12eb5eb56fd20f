package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

func TestScriptIsValidAndMatchesSteps(t *testing.T) {
	calls := sessionSteps(30, 300)
	sc := sessionScript(calls)
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := scripted.ParseScript(data)
	if err != nil {
		t.Fatalf("script does not load: %v", err)
	}
	if len(parsed.Steps) != 31 {
		t.Fatalf("%d steps, want 30 tool steps and a final answer", len(parsed.Steps))
	}
	for i, st := range parsed.Steps[:30] {
		var names []string
		for _, c := range st.ToolCalls {
			names = append(names, c.Name)
		}
		if got := strings.Join(names, ","); got != "Read,Grep,Bash" {
			t.Errorf("step %d calls %s", i, got)
		}
	}
	if last := parsed.Steps[30]; len(last.ToolCalls) != 0 || last.Text == "" {
		t.Errorf("last step %+v is not a text answer", last)
	}
}

// The baseline must do the same work the session asks for: every path it
// reads exists and every command succeeds in the workspace.
func TestBaselineRunsInWorkspace(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	rg, _ := exec.LookPath("rg")
	work := t.TempDir()
	if err := writeWorkspace(work, 60); err != nil {
		t.Fatal(err)
	}
	calls := sessionSteps(4, 60)
	for _, c := range calls {
		if _, err := os.Stat(filepath.Join(work, c.readPath)); err != nil {
			t.Fatalf("step reads a missing file: %v", err)
		}
	}
	s, err := baseline(t.Context(), rg, bash, work, calls)
	if err != nil {
		t.Fatal(err)
	}
	if s.wall <= 0 || s.cpu < 0 {
		t.Errorf("baseline sample %+v", s)
	}
}

func TestCheckResult(t *testing.T) {
	ok := `{"type":"text","text":"x"}` + "\n" + `{"type":"result","num_turns":3}` + "\n" + `{"type":"done"}` + "\n"
	tests := []struct {
		name, out string
		turns     int
		wantErr   string
	}{
		{"ok", ok, 3, ""},
		{"wrong turns", ok, 31, "took 3 model steps"},
		{"error", `{"type":"result","is_error":true,"error":"boom","num_turns":1}`, 1, "boom"},
		{"missing", `{"type":"text"}`, 1, "no result event"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkResult([]byte(tc.out), tc.turns)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("checkResult = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestStats(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want stat
	}{
		{[]float64{3}, stat{3, 3, 3}},
		{[]float64{5, 1, 3}, stat{1, 3, 5}},
		{[]float64{4, 1, 3, 2}, stat{1, 2.5, 4}},
	} {
		if got := stats(tc.in); got != tc.want {
			t.Errorf("stats(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestSizePrompt sizes system blocks and tools with compact's estimate.
func TestSizePrompt(t *testing.T) {
	body := `{"model":"m","system":[{"type":"text","text":"12345678"},{"type":"text","text":"abcd"}],` +
		`"tools":[{"name":"Read","description":"Reads a file.","input_schema":{"type":"object"}},` +
		`{"type":"web_search_20250305","name":"web_search","max_uses":5}],"messages":[]}`
	p, err := sizePrompt([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if p.system != 3 {
		t.Errorf("system %d tokens, want 2+1", p.system)
	}
	// Read: name 1 + description 4 + schema 5 + 4 framing.
	// web_search: its 62 bytes of JSON.
	want := map[string]int64{"Read": 14, "web_search (web_search_20250305)": 16}
	if len(p.tools) != 2 {
		t.Fatalf("tools %+v", p.tools)
	}
	for _, tl := range p.tools {
		if want[tl.name] != tl.tokens {
			t.Errorf("tool %s: %d tokens, want %d", tl.name, tl.tokens, want[tl.name])
		}
	}
	if p.total() != 3+14+16 {
		t.Errorf("total %d", p.total())
	}
	if _, err := sizePrompt([]byte(`{"system":5}`)); err == nil {
		t.Error("a numeric system field was accepted")
	}
}
