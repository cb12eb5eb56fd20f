package app

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
)

func TestProviderConfigLayers(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	m := newModels(cat, func(k string) string { return env[k] })
	cfg := &config.Config{Providers: map[string]config.Provider{
		"anthropic": {BaseURL: "https://proxy.example/v1", Headers: map[string]string{"anthropic-beta": "x"}},
		"mine":      {Kind: "openai-compatible", BaseURL: "http://localhost:9/v1", APIKeyEnv: "MINE_KEY"},
		"off":       {Kind: "openai", Disabled: true},
	}}
	env["ANTHROPIC_API_KEY"] = "k1"
	pc, err := m.providerConfig("anthropic", cfg)
	if err != nil || pc.BaseURL != "https://proxy.example/v1" || pc.APIKey != "k1" || pc.Kind != "anthropic" || pc.Headers["anthropic-beta"] != "x" {
		t.Fatalf("config over preset: %+v %v", pc, err)
	}
	env["ANTHROPIC_BASE_URL"] = "http://env.example"
	if pc, _ = m.providerConfig("anthropic", cfg); pc.BaseURL != "http://env.example" {
		t.Errorf("env should win over the file: %s", pc.BaseURL)
	}
	delete(env, "ANTHROPIC_API_KEY")
	env["ANTHROPIC_AUTH_TOKEN"] = "bearer"
	if pc, _ = m.providerConfig("anthropic", cfg); pc.AuthToken != "bearer" || pc.APIKey != "" {
		t.Errorf("auth token: %+v", pc)
	}
	if _, err := m.providerConfig("mine", cfg); err == nil || !strings.Contains(err.Error(), "MINE_KEY") {
		t.Errorf("missing api_key_env should be named: %v", err)
	}
	env["MINE_KEY"] = "secret"
	if pc, err = m.providerConfig("mine", cfg); err != nil || pc.APIKey != "secret" {
		t.Errorf("custom provider: %+v %v", pc, err)
	}
	if _, err := m.providerConfig("off", cfg); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Errorf("disabled provider: %v", err)
	}
	if _, err := m.providerConfig("nosuch", cfg); err == nil || !strings.Contains(err.Error(), "unknown provider") {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestDefaultModelFromEnv(t *testing.T) {
	cat, _ := catalog.Load()
	env := map[string]string{}
	m := newModels(cat, func(k string) string { return env[k] })
	if got := m.defaultFromEnv(); got != "" {
		t.Errorf("no key: %q", got)
	}
	env["OPENAI_API_KEY"] = "x"
	if got := m.defaultFromEnv(); !strings.HasPrefix(got, "openai/") {
		t.Errorf("openai key: %q", got)
	}
	env["ANTHROPIC_API_KEY"] = "x"
	if got := m.defaultFromEnv(); !strings.HasPrefix(got, "anthropic/") {
		t.Errorf("anthropic key: %q", got)
	}
	_, err := m.resolver(nil).Resolve("")
	if err != nil {
		t.Errorf("resolve default: %v", err)
	}
}

func TestContextWindowFromCatalogAndConfig(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ANTHROPIC_API_KEY": "k"}
	m := newModels(cat, func(k string) string { return env[k] })
	got, err := m.resolver(&config.Config{}).Resolve("anthropic/claude-haiku-4-5")
	if err != nil || got.ContextWindow != 200000 {
		t.Fatalf("catalog window: %d %v", got.ContextWindow, err)
	}
	cfg := &config.Config{Providers: map[string]config.Provider{"anthropic": {ContextWindow: 150000,
		Models: map[string]config.ProviderModel{"claude-haiku-4-5": {ContextWindow: 50000}}}}}
	if got, _ = m.resolver(cfg).Resolve("anthropic/claude-haiku-4-5"); got.ContextWindow != 50000 {
		t.Errorf("per-model override: %d", got.ContextWindow)
	}
	if got, _ = m.resolver(cfg).Resolve("anthropic/claude-opus-4-6"); got.ContextWindow != 150000 {
		t.Errorf("per-provider override: %d", got.ContextWindow)
	}
}

// The cloud providers need no key: their presets, the config's region,
// project and key file, the environment's defaults under the file's, and a
// resolvable model that builds without touching the network.
func TestCloudProviderConfig(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": "/home/u", "GOOGLE_CLOUD_PROJECT": "env-project", "GOOGLE_CLOUD_LOCATION": "europe-west1",
		"AWS_REGION": "eu-west-1", "AWS_BEARER_TOKEN_BEDROCK": "ABSK-x"}
	m := newModels(cat, func(k string) string { return env[k] })
	cfg := &config.Config{Providers: map[string]config.Provider{
		"vertex": {Project: "file-project", CredentialsFile: "~/keys/sa.json"},
	}}
	pc, err := m.providerConfig("vertex", cfg)
	if err != nil || pc.Kind != "vertex" || pc.Cloud.Project != "file-project" || pc.Cloud.Region != "europe-west1" || pc.Cloud.CredentialsFile != "/home/u/keys/sa.json" {
		t.Errorf("vertex: %+v %v", pc, err)
	}
	pc, err = m.providerConfig("bedrock", nil)
	if err != nil || pc.Kind != "bedrock" || pc.Cloud.Region != "eu-west-1" || pc.APIKey != "ABSK-x" {
		t.Errorf("bedrock: %+v %v", pc, err)
	}
	for _, spec := range []string{"bedrock/claude-sonnet-4-5", "vertex/claude-sonnet-4-5", "vertex/gemini-2.5-flash"} {
		model, err := m.resolver(cfg).Resolve(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if model.ContextWindow != 200000 && model.ContextWindow != 1048576 || model.Cost == nil {
			t.Errorf("%s: %+v", spec, model)
		}
	}
	env["AWS_REGION"] = "not a region"
	delete(env, "AWS_BEARER_TOKEN_BEDROCK")
	if _, err := m.providerConfig("bedrock", nil); err == nil || !strings.Contains(err.Error(), "not a region name") {
		t.Errorf("bad region from the environment: %v", err)
	}
}

// A cloud provider in the user's file counts as set up for the model
// pickers, though no key is in sight.
func TestCloudProviderOffersItsModels(t *testing.T) {
	a, _ := testApp(t, map[string]string{})
	a.User = &config.Config{Providers: map[string]config.Provider{"vertex": {Project: "p"}}}
	var ids []string
	for _, c := range a.ModelChoices() {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, " "); !strings.Contains(got, "vertex/claude-sonnet-4-5") || !strings.Contains(got, "vertex/gemini-2.5-pro") || strings.Contains(got, "bedrock/") {
		t.Errorf("choices: %s", got)
	}
}

// OpenAI's organization and project variables set their headers, as
// OpenAI's SDK did by itself; a header in the config wins, and the
// config's own map is never written to.
func TestPresetHeaderEnv(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_ORG_ID": "org-1", "OPENAI_PROJECT_ID": "proj-1"}
	m := newModels(cat, func(k string) string { return env[k] })
	pc, err := m.providerConfig("openai", nil)
	if err != nil || pc.Headers["OpenAI-Organization"] != "org-1" || pc.Headers["OpenAI-Project"] != "proj-1" {
		t.Fatalf("headers from the environment: %+v %v", pc.Headers, err)
	}
	own := map[string]string{"openai-organization": "org-file"}
	cfg := &config.Config{Providers: map[string]config.Provider{"openai": {Headers: own}}}
	pc, err = m.providerConfig("openai", cfg)
	if err != nil || pc.Headers["openai-organization"] != "org-file" || pc.Headers["OpenAI-Organization"] != "" || pc.Headers["OpenAI-Project"] != "proj-1" {
		t.Fatalf("config header should win: %+v %v", pc.Headers, err)
	}
	if len(own) != 1 {
		t.Errorf("the config's headers map was written to: %v", own)
	}
	delete(env, "OPENAI_ORG_ID")
	delete(env, "OPENAI_PROJECT_ID")
	if pc, _ = m.providerConfig("openai", nil); len(pc.Headers) != 0 {
		t.Errorf("no variables, no headers: %v", pc.Headers)
	}
}
