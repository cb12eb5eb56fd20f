package config

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/runtimes"

	"github.com/tandem-agent/tandem/internal/testfiles"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	return testfiles.Write(t, filepath.Join(dir, name), body)
}

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	user := writeFile(t, dir, "user.json", `{"model":"anthropic/claude-sonnet-4-5","runtime":"native",
		"providers":{"openai":{"base_url":"http://a","headers":{"X-A":"1"}}},"enableAllProjectMcpServers":false}`)
	proj := writeFile(t, dir, "proj/.tandem/config.json", `{"model":"openai/gpt-5","providers":{"openai":{"headers":{"X-B":"2"}}},
		"permissions":{"allow":["Bash(ls)"]}}`)
	c, err := Load(user, proj)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "openai/gpt-5" || c.Runtime != "native" {
		t.Errorf("project should win for model, user kept for runtime: %+v", c)
	}
	p := c.Providers["openai"]
	if p.BaseURL != "http://a" || p.Headers["X-A"] != "1" || p.Headers["X-B"] != "2" {
		t.Errorf("provider merge: %+v", p)
	}
	if c.SectionSource("permissions") != proj || len(c.Layers) != 2 || c.Layers[1].Scope != "project" {
		t.Errorf("section source / layers wrong: %q %d", c.SectionSource("permissions"), len(c.Layers))
	}
	env := map[string]string{"TANDEM_MODEL": "ollama/qwen3"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if c.Model != "ollama/qwen3" {
		t.Errorf("env should win: %s", c.Model)
	}
}

func TestErrorsNameFileAndField(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ body, want string }{
		{`{"runtime":"turbo"}`, `field "runtime"`},
		{`{"modle":"x"}`, `field "modle": unknown setting`},
		{`{"max_turns":"ten"}`, `field "max_turns"`},
		{"{\n\"model\": \"a\",\n}", ":3: invalid JSON"},
		{`{"providers":{"x":{"kind":"grpc-gemini"}}}`, `providers.x.kind`},
		{`{"providers":{"x":{"base_url":"ftp://h"}}}`, `providers.x.base_url`},
		{`{"providers":{"x":{"api_key":"a","api_key_env":"B"}}}`, `set api_key or api_key_env`},
		{`{"tools":{"web_search":{"backend":"bing"}}}`, `tools.web_search.backend`},
		{`{"providers":{"x":{"kind":"anthropic","transport":"claude-code"}}}`, `"claude-code" is not a transport; use standard or claude-code-compat`},
		{`{"providers":{"x":{"kind":"openai","transport":"claude-code-compat"}}}`, `set "kind": "anthropic"`},
		{`{"providers":{"x":{"base_url":"http//h"}}}`, `providers.x.base_url`},
		{`{"providers":{"x":{"base_url":"https://"}}}`, `providers.x.base_url`},
		{"{\"model\": \"a/b\"}\n\n}", ":3: unexpected text after the JSON object"},
		{"{\"model\": \"a/b\"}\n{\"model\": \"c/d\"}", ":2: unexpected text after the JSON object"},
		{`{"hooks":{"Stop":[]}}`, `field "hooks": tandem reads hooks from "permissions": {"hooks"`},
		{`{"providers":{"bedrock":{"region":"evil.example.com/x"}}}`, `"providers.bedrock.region": "evil.example.com/x" is not a region name`},
		{`{"providers":{"vertex":{"credentials_file":"sa.json"}}}`, `"providers.vertex.credentials_file": "sa.json" is relative`},
	}
	for _, tc := range cases {
		p := writeFile(t, dir, "c.json", tc.body)
		_, err := Load(p, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want mention of %q and the file", tc.body, err, tc.want)
		}
	}
}

// The cloud settings merge field by field, project over user.
func TestCloudSettingsMerge(t *testing.T) {
	dir := t.TempDir()
	user := writeFile(t, dir, "user.json", `{"providers":{"vertex":{"project":"p1","region":"us-east5","credentials_file":"~/sa.json"},"bedrock":{"profile":"work"}}}`)
	proj := writeFile(t, dir, "proj/.tandem/config.json", `{"providers":{"vertex":{"region":"global"},"bedrock":{"region":"eu-west-1"}}}`)
	c, err := Load(user, proj)
	if err != nil {
		t.Fatal(err)
	}
	v, b := c.Providers["vertex"], c.Providers["bedrock"]
	if v.Project != "p1" || v.Region != "global" || v.CredentialsFile != "~/sa.json" || b.Profile != "work" || b.Region != "eu-west-1" {
		t.Errorf("vertex %+v bedrock %+v", v, b)
	}
}

// A project file cannot approve its own MCP servers; the setting used to be
// dropped without a word.
func TestProjectCannotApproveItsServers(t *testing.T) {
	dir := t.TempDir()
	for _, body := range []string{`{"enableAllProjectMcpServers":true}`, `{"enabledMcpjsonServers":["x"]}`} {
		proj := writeFile(t, dir, "proj/.tandem/config.json", body)
		_, err := Load("", proj)
		if err == nil || !strings.Contains(err.Error(), proj) || !strings.Contains(err.Error(), "user config") {
			t.Errorf("%s: %v", body, err)
		}
		user := writeFile(t, dir, "user.json", body)
		if _, err := Load(user, ""); err != nil {
			t.Errorf("the user file may set it: %v", err)
		}
	}
}

// Where sessions are stored is the user's: a project file naming a
// database is refused with the fix; the user file sets it and the
// environment overrides that.
func TestDatabaseOnlyFromUser(t *testing.T) {
	dir := t.TempDir()
	proj := writeFile(t, dir, "proj/.tandem/config.json", `{"database":"postgres://attacker.example/db"}`)
	_, err := Load("", proj)
	if err == nil || !strings.Contains(err.Error(), proj) || !strings.Contains(err.Error(), `"database"`) ||
		!strings.Contains(err.Error(), "user config") || !strings.Contains(err.Error(), "TANDEM_DATABASE_URL") {
		t.Errorf("project database: %v", err)
	}
	user := writeFile(t, dir, "user.json", `{"database":"/data/team.db"}`)
	c, err := Load(user, "")
	if err != nil || c.Database != "/data/team.db" {
		t.Fatalf("user database: %q, %v", c.Database, err)
	}
	env := map[string]string{"TANDEM_DATABASE_URL": "sqlite:/other.db"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil || c.Database != "sqlite:/other.db" {
		t.Errorf("environment over the user file: %q, %v", c.Database, err)
	}
}

func TestTrailingWhitespaceIsFine(t *testing.T) {
	p := writeFile(t, t.TempDir(), "c.json", "{\"model\": \"a/b\"}\n\n  \n")
	if _, err := Load(p, ""); err != nil {
		t.Fatal(err)
	}
}

func TestCheckBaseURL(t *testing.T) {
	for v, ok := range map[string]bool{"http://127.0.0.1:8080": true, "https://api.example.com/v1": true,
		"127.0.0.1:8080": false, "api.example.com": false, "ftp://h": false, "http://": false, "": false} {
		if err := CheckBaseURL(v); (err == nil) != ok {
			t.Errorf("CheckBaseURL(%q) = %v, want ok=%v", v, err, ok)
		}
	}
}

func TestMissingFilesAreFine(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "none.json"), "")
	if err != nil || c == nil {
		t.Fatal(err)
	}
}

func TestResolvePaths(t *testing.T) {
	env := map[string]string{"HOME": "/h"}
	get := func(k string) string { return env[k] }
	p, _ := ResolvePaths("", get)
	if p.ConfigDir != "/h/.config/tandem" || p.DataDir != "/h/.local/share/tandem" {
		t.Errorf("defaults: %+v", p)
	}
	env["XDG_CONFIG_HOME"], env["XDG_DATA_HOME"] = "/c", "/d"
	p, _ = ResolvePaths("", get)
	if p.ConfigDir != "/c/tandem" || p.DataDir != "/d/tandem" {
		t.Errorf("xdg: %+v", p)
	}
	env["TANDEM_HOME"] = "/t"
	p, _ = ResolvePaths("", get)
	if p.ConfigDir != "/t" || p.DBFile() != "/t/tandem.db" {
		t.Errorf("TANDEM_HOME: %+v", p)
	}
	p, _ = ResolvePaths("/flag", get)
	if p.DataDir != "/flag" {
		t.Errorf("flag: %+v", p)
	}
}

func TestSchemaCoversEveryTopLevelKey(t *testing.T) {
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(Schema(), &s); err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeOf(Config{})
	for i := 0; i < typ.NumField(); i++ {
		tag := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		if _, ok := s.Properties[tag]; !ok {
			t.Errorf("schema lacks %q", tag)
		}
	}
}

// The schema's provider kinds are the provider package's list.
func TestSchemaKindsAreProviderKinds(t *testing.T) {
	var s struct {
		Properties struct {
			Providers struct {
				AdditionalProperties struct {
					Properties struct {
						Kind struct {
							Enum []string `json:"enum"`
						} `json:"kind"`
						Transport struct {
							Enum []string `json:"enum"`
						} `json:"transport"`
					} `json:"properties"`
				} `json:"additionalProperties"`
			} `json:"providers"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Properties.Providers.AdditionalProperties.Properties.Kind.Enum, provider.Kinds(); !reflect.DeepEqual(got, want) {
		t.Errorf("schema kinds %v, provider.Kinds() %v", got, want)
	}
	if got, want := s.Properties.Providers.AdditionalProperties.Properties.Transport.Enum, provider.Transports(); !reflect.DeepEqual(got, want) {
		t.Errorf("schema transports %v, provider.Transports() %v", got, want)
	}
}

// The schema's runtimes are the turn package's list.
func TestSchemaRuntimesAreRuntimeNames(t *testing.T) {
	var s struct {
		Properties struct {
			Runtime struct {
				Enum []runtimes.Name `json:"enum"`
			} `json:"runtime"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Properties.Runtime.Enum, runtimes.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("schema runtimes %v, runtimes.Names() %v", got, want)
	}
}

// max_budget_usd: the smallest any layer sets applies, so a project file
// can tighten the user's budget but never loosen it.
func TestMaxBudgetKeepsTheSmallest(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		user, proj string
		want       float64
	}{
		{`{"max_budget_usd": 5}`, `{"max_budget_usd": 100}`, 5},
		{`{"max_budget_usd": 5}`, `{"max_budget_usd": 1.5}`, 1.5},
		{`{}`, `{"max_budget_usd": 2}`, 2},
		{`{"max_budget_usd": 3}`, `{}`, 3},
	} {
		user := writeFile(t, dir, "user.json", c.user)
		proj := writeFile(t, dir, "proj/.tandem/config.json", c.proj)
		cfg, err := Load(user, proj)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.MaxBudgetUSD != c.want {
			t.Errorf("user %s, project %s: %v, want %v", c.user, c.proj, cfg.MaxBudgetUSD, c.want)
		}
	}
	if _, err := Load(writeFile(t, dir, "bad.json", `{"max_budget_usd": -1}`), ""); err == nil || !strings.Contains(err.Error(), "max_budget_usd") {
		t.Errorf("negative budget: %v", err)
	}
}
