package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const compatProxy = `{"providers":{"proxy":{"kind":"anthropic","base_url":"http://127.0.0.1:1","api_key":"k","transport":"claude-code-compat"}}`

// A claude-code-compat provider with no runtime named goes "auto": the
// claude-code runtime when the CLI is found, the native runtime with the
// compat transport otherwise. A named runtime wins.
func TestCompatProviderRoutesAuto(t *testing.T) {
	a, work := testApp(t, nil)
	writeTestFile(t, filepath.Join(a.Paths.ConfigDir, "config.json"), compatProxy+`}`)
	s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, Model: "proxy/claude-sonnet-4-5", CheckModel: true})
	if err != nil || s.Runtime != "auto" {
		t.Fatalf("unspecified runtime: %+v %v", s, err)
	}
	s, err = a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, Model: "proxy/claude-sonnet-4-5", Runtime: "native", CheckModel: true})
	if err != nil || s.Runtime != "native" {
		t.Fatalf("--runtime native: %+v %v", s, err)
	}
	// Without the setting nothing changes.
	s, err = a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, Model: "anthropic/claude-sonnet-4-5"})
	if err != nil || s.Runtime != "native" {
		t.Fatalf("standard provider: %+v %v", s, err)
	}
}

// The install id behind the compat transport's device id is created once
// in the data folder and reused.
func TestCompatProviderGetsInstallID(t *testing.T) {
	a, _ := testApp(t, nil)
	writeTestFile(t, filepath.Join(a.Paths.ConfigDir, "config.json"), compatProxy+`}`)
	cfg, err := a.ConfigFor(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pc, err := a.models.providerConfig("proxy", cfg)
	if err != nil || pc.Transport != "claude-code-compat" || len(pc.InstallID) != 64 {
		t.Fatalf("provider config %+v %v", pc, err)
	}
	b, err := os.ReadFile(filepath.Join(a.Paths.DataDir, installIDFile))
	if err != nil || strings.TrimSpace(string(b)) != pc.InstallID {
		t.Fatalf("stored id %q %v", b, err)
	}
	again, err := loadInstallID(a.Paths.DataDir)
	if err != nil || again != pc.InstallID {
		t.Errorf("second load %q %v", again, err)
	}
}

// A turn forced onto claude-code without a usable CLI is refused before
// any request (the wiring calls checkClaudeCodeCLI), naming both fixes.
func TestForcedClaudeCodeWithoutCLINamesBothFixes(t *testing.T) {
	a, work := testApp(t, map[string]string{"PATH": t.TempDir()})
	writeTestFile(t, filepath.Join(a.Paths.ConfigDir, "config.json"),
		`{"claude_code":{"path":"`+filepath.Join(t.TempDir(), "no-claude")+`"},"providers":{"proxy":{"kind":"anthropic","base_url":"http://127.0.0.1:1","api_key":"k"}}}`)
	s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, Model: "proxy/claude-sonnet-4-5", Runtime: "claude-code", CheckModel: true})
	if err != nil {
		t.Fatal(err)
	}
	err = a.checkClaudeCodeCLI(s)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"runtime claude-code", "claude_code.path", "--runtime native", `"transport": "claude-code-compat" under providers.proxy`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// A model the chosen provider's protocol cannot carry is refused before
// any request, naming the provider that serves it.
func TestModelProviderMismatchRefused(t *testing.T) {
	a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"})
	writeTestFile(t, filepath.Join(a.Paths.ConfigDir, "config.json"), `{"providers":{
		"work":{"kind":"anthropic","base_url":"http://127.0.0.1:1","api_key":"k"},
		"gw":{"kind":"anthropic","base_url":"http://127.0.0.1:1","api_key":"k","models":{"gpt-5":{}}},
		"local":{"kind":"openai-compatible","base_url":"http://127.0.0.1:1"}}}`)
	refused := []struct{ model, runtime, want string }{
		{"anthropic/gemini-2.5-pro", "native", "gemini-2.5-pro is a Google model; the anthropic provider (kind anthropic) speaks only the Anthropic Messages API. Use --model gemini/gemini-2.5-pro (provider kind gemini)"},
		{"work/gpt-5", "native", "gpt-5 is an OpenAI model; the work provider (kind anthropic) speaks only the Anthropic Messages API. Use --model openai/gpt-5 (provider kind openai)"},
		{"openai/claude-sonnet-4-5", "native", "Use --model anthropic/claude-sonnet-4-5 (provider kind anthropic)"},
		{"openai/gpt-5", "claude-code", "the claude-code runtime speaks only the Anthropic Messages API, and provider openai is kind openai"},
	}
	for _, tc := range refused {
		_, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, Model: tc.model, Runtime: tc.runtime, CheckModel: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s (%s): got %v, want %q", tc.model, tc.runtime, err, tc.want)
		}
	}
	for _, model := range []string{"anthropic/claude-sonnet-5-5", "openai/gpt-5", "gemini/gemini-2.5-pro",
		"local/gpt-5", "local/some-unknown-model", "work/some-unknown-model", "gw/gpt-5"} {
		if _, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, Model: model, Runtime: "native", CheckModel: true}); err != nil {
			t.Errorf("%s refused: %v", model, err)
		}
	}
}
