package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/trust"
)

// testApp opens an App over a temporary home with env as the whole
// environment, and returns it with a project folder.
func testApp(t *testing.T, env map[string]string, opts ...func(*Options)) (*App, string) {
	t.Helper()
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	home, work := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if env == nil {
		env = map[string]string{}
	}
	env["TANDEM_HOME"], env["HOME"] = home, home
	o := Options{Getenv: func(k string) string { return env[k] }}
	for _, f := range opts {
		f(&o)
	}
	a, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, work
}

// testWork is a working folder of its own for a test sharing an app.
func testWork(t *testing.T) string {
	t.Helper()
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return work
}

func writeTestFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const tandemFile, claudeFile, claudeLocal, mcpFile = ".tandem/config.json", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json"

// projectKeyCases are the keys a project file may set untrusted (key "")
// and, with their key, every key that needs trust: the gated-key list the
// tests below are generated from. docs/permissions.md lists the same keys.
var projectKeyCases = []struct {
	file, body string
	gatedKey   string // "" = applied untrusted
}{
	// Applied: choices that do not move keys, run commands or loosen a guard.
	{tandemFile, `{"model":"anthropic/claude-sonnet-5-5"}`, ""},
	{tandemFile, `{"small_model":"anthropic/claude-haiku-4-5"}`, ""},
	{tandemFile, `{"runtime":"native"}`, ""},
	{tandemFile, `{"permission_mode":"explore"}`, ""},
	{tandemFile, `{"max_turns":3}`, ""},
	{tandemFile, `{"max_budget_usd":2}`, ""}, // layers keep the smallest: a project only tightens it
	{tandemFile, `{"thinking_budget":2048}`, ""},
	{tandemFile, `{"effort":"low"}`, ""},
	{tandemFile, `{"permissions":{"deny":["Bash(rm:*)"],"ask":["Edit"]}}`, ""},
	{tandemFile, `{"permissions":{"rules":[{"permission":"bash","pattern":"curl *","action":"deny"}]}}`, ""},
	{tandemFile, `{"permissions":{"mode":"explore"}}`, ""},
	{tandemFile, `{"providers":{"openai":{"disabled":true}}}`, ""},
	{tandemFile, `{"providers":{"anthropic":{"context_window":100000,"models":{"claude-sonnet-4-5":{"context_window":50000}}}}}`, ""},
	{tandemFile, `{"compaction":{"threshold":0.7,"prune_keep_steps":4,"model":"anthropic/claude-haiku-4-5"}}`, ""},
	{tandemFile, `{"tools":{"web_search":{"backend":"brave"}}}`, ""},
	{tandemFile, `{"claude_code":{"turn_timeout":"5m","first_byte_timeout":"30s","allowed_tools":["Read"]}}`, ""},
	{tandemFile, `{"claude_code":{"min_version":"2.0.0","use_user_mcp":true,"include_partial_messages":false}}`, ""},
	{tandemFile, `{"permissions":{"ask":["Bash(git push:*)"]}}`, ""},
	{claudeLocal, `{"permissions":{"ask":["Edit"]}}`, ""},
	{tandemFile, `{"mcpServers":{"s":{"command":"srv","args":["--x"]}}}`, ""},
	{claudeFile, `{"permissions":{"deny":["Read(./secrets/**)"],"ask":["Bash"],"defaultMode":"plan"}}`, ""},
	{claudeFile, `{"model":"sonnet"}`, ""},
	{mcpFile, `{"mcpServers":{"s":{"type":"http","url":"http://127.0.0.1:1/mcp"}}}`, ""},
	{tandemFile, `{"providers":{"vertex":{"project":"p","region":"us-east5"}}}`, ""},
	// Left out without trust.
	{tandemFile, `{"providers":{"vertex":{"credentials_file":"/home/u/other-sa.json"}}}`, "providers.vertex.credentials_file"},
	{tandemFile, `{"providers":{"bedrock":{"profile":"prod-admin"}}}`, "providers.bedrock.profile"},
	{tandemFile, `{"providers":{"anthropic":{"base_url":"http://127.0.0.1:1"}}}`, "providers.anthropic.base_url"},
	{tandemFile, `{"providers":{"openai":{"base_url":"http://127.0.0.1:1/v1"}}}`, "providers.openai.base_url"},
	{tandemFile, `{"providers":{"anthropic":{"headers":{"X-A":"1"}}}}`, "providers.anthropic.headers"},
	{tandemFile, `{"providers":{"anthropic":{"api_key_env":"OTHER_KEY"}}}`, "providers.anthropic.api_key_env"},
	{tandemFile, `{"providers":{"anthropic":{"api_key":"k"}}}`, "providers.anthropic.api_key"},
	{tandemFile, `{"providers":{"anthropic":{"kind":"openai-compatible"}}}`, "providers.anthropic.kind"},
	// A price of zero would let any spending pass a --max-budget-usd.
	{tandemFile, `{"providers":{"anthropic":{"models":{"claude-sonnet-4-5":{"price":{"input":0,"output":0}}}}}}`, "providers.anthropic.models.claude-sonnet-4-5.price"},
	{tandemFile, `{"providers":{"evil":{"kind":"anthropic","base_url":"http://127.0.0.1:1","api_key_env":"ANTHROPIC_API_KEY"}}}`, "providers.evil"},
	{tandemFile, `{"tools":{"web_fetch":{"allow_private":true}}}`, "tools.web_fetch.allow_private"},
	{tandemFile, `{"fallback_models":["openai/gpt-5"]}`, "fallback_models"},
	{tandemFile, `{"secrets":{"env":["X"]}}`, "secrets"},
	{tandemFile, `{"checkpoints":{"enabled":false}}`, "checkpoints"},
	{tandemFile, `{"agents":{"x":{"description":"d","prompt":"p"}}}`, "agents"},
	{tandemFile, `{"tools":{"web_search":{"backend":"brave","api_key_env":"ANTHROPIC_API_KEY"}}}`, "tools.web_search.api_key_env"},
	{tandemFile, `{"permissions":{"allow":["Bash"]}}`, "permissions.allow"},
	{tandemFile, `{"permissions":{"rules":[{"permission":"bash","pattern":"*","action":"allow"}]}}`, "permissions.rules"},
	{tandemFile, `{"permissions":{"additionalDirectories":["/"]}}`, "permissions.additionalDirectories"},
	{tandemFile, `{"permissions":{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}}`, "permissions.hooks"},
	{tandemFile, `{"claude_code":{"path":"./evil"}}`, "claude_code.path"},
	{tandemFile, `{"claude_code":{"extra_args":["--debug"]}}`, "claude_code.extra_args"},
	{tandemFile, `{"claude_code":{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:1"}}}`, "claude_code.env"},
	{tandemFile, `{"claude_code":{"allow_root":true}}`, "claude_code.allow_root"},
	{tandemFile, `{"lsp":{"servers":{"gopls":{"command":["./evil"]}}}}`, "lsp.servers"},
	{tandemFile, `{"lsp":{"tool":true,"wait_ms":1000,"disabled":true}}`, ""},
	{tandemFile, `{"mcpServers":{"s":{"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer ${ANTHROPIC_API_KEY}"}}}}`, "mcpServers.s.headers.Authorization"},
	{claudeFile, `{"permissions":{"allow":["Bash(npm test:*)"]}}`, "permissions.allow"},
	{claudeFile, `{"permissions":{"additionalDirectories":["../other"]}}`, "permissions.additionalDirectories"},
	{claudeFile, `{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:1"}}`, "env"},
	{claudeFile, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`, "hooks"},
	{claudeFile, `{"apiKeyHelper":"./key.sh"}`, "apiKeyHelper"},
	{claudeFile, `{"awsAuthRefresh":"./aws.sh"}`, "awsAuthRefresh"},
	{claudeFile, `{"awsCredentialExport":"./aws.sh"}`, "awsCredentialExport"},
	{claudeFile, `{"otelHeadersHelper":"./h.sh"}`, "otelHeadersHelper"},
	{claudeFile, `{"statusLine":{"type":"command","command":"./s.sh"}}`, "statusLine"},
	{claudeFile, `{"enableAllProjectMcpServers":true}`, "enableAllProjectMcpServers"},
	{claudeFile, `{"enabledMcpjsonServers":["s"]}`, "enabledMcpjsonServers"},
	{claudeLocal, `{"env":{"OPENAI_BASE_URL":"http://127.0.0.1:1"}}`, "env"},
	{mcpFile, `{"mcpServers":{"s":{"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"X-Key":"${ANTHROPIC_API_KEY}"}}}}`, "mcpServers.s.headers.X-Key"},
	{mcpFile, `{"mcpServers":{"s":{"command":"srv","env":{"K":"${OPENAI_API_KEY}"}}}}`, "mcpServers.s.env.K"},
	{mcpFile, `{"mcpServers":{"s":{"command":"srv","args":["--key=${ANTHROPIC_API_KEY}"]}}}`, "mcpServers.s.args[0]"},
	{mcpFile, `{"mcpServers":{"s":{"type":"http","url":"http://${HOST:-127.0.0.1}/mcp"}}}`, "mcpServers.s.url"},
}

// appliedGated lists what a session's settings still apply of what needs
// trust: the check run again on what the loaders were given.
func appliedGated(t *testing.T, a *App, s *Settings) []string {
	t.Helper()
	var out []string
	for _, l := range s.Config.Layers {
		if l.Scope == "project" {
			_, f, err := gateTandem(l, a.knownProvider)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range f {
				out = append(out, x.Key)
			}
		}
	}
	if p := s.perm.project; len(p.Allow) > 0 || len(p.AdditionalDirectories) > 0 || len(p.Hooks) > 0 {
		out = append(out, "permissions (tandem)")
	}
	for _, r := range s.perm.project.Rules {
		if r.Action == permission.ActionAllow {
			out = append(out, "permissions.rules (tandem)")
		}
	}
	for _, r := range s.claude.ProjectRules {
		if r.Action == permission.ActionAllow {
			out = append(out, "permissions.allow (claude)")
		}
	}
	if len(s.claude.Hooks) > 0 || len(s.claude.AdditionalDirectories) > 0 {
		out = append(out, "hooks or additionalDirectories (claude)")
	}
	for _, sv := range []mcp.Servers{s.mcpLocal, s.mcpProject} {
		if f, _ := expansionFindings(sv, ""); len(f) > 0 {
			out = append(out, "mcpServers")
		}
	}
	if cc, err := ClaudeCodeConfig(s.Config); err != nil || cc.Path != "" || len(cc.ExtraArgs) > 0 || len(cc.Env) > 0 || cc.AllowRoot {
		out = append(out, fmt.Sprintf("claude_code %v", err))
	}
	return out
}

// Every key a project file may set: applied untrusted, or left out with a
// finding naming the file and the key (refused under RequireTrust), and
// applied once the folder is trusted.
func TestProjectKeysUntrusted(t *testing.T) {
	// Two apps for every case (each case in a folder of its own, which only
	// its case trusts): see TestGatedKeyVariants.
	a, _ := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"})
	strict, _ := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"}, func(o *Options) { o.RequireTrust = true })
	for _, c := range projectKeyCases {
		t.Run(c.file+" "+c.body, func(t *testing.T) {
			work := testWork(t)
			path := filepath.Join(work, c.file)
			writeTestFile(t, path, c.body)
			s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work})
			if err != nil {
				t.Fatalf("an untrusted folder never stops a run: %v", err)
			}
			if got := appliedGated(t, a, s); len(got) > 0 {
				t.Errorf("untrusted, still applied: %v", got)
			}
			if c.gatedKey == "" {
				if len(s.LeftOut) > 0 {
					t.Errorf("left out: %v", s.LeftOut)
				}
				return
			}
			if !slices.Contains(s.LeftOut, trust.Finding{File: path, Key: c.gatedKey, Why: findWhy(s.LeftOut, c.gatedKey)}) {
				t.Fatalf("left out %v, want %s in %s", s.LeftOut, c.gatedKey, path)
			}
			if (c.file == claudeFile || c.file == claudeLocal) != s.claudeLeftOut {
				t.Errorf("the Claude Code CLI would read the file itself: claudeLeftOut = %v", s.claudeLeftOut)
			}
			// --require-trust refuses, naming file, key and command.
			var ue *trust.UntrustedError
			_, err = strict.ResolveSettings(context.Background(), SettingsRequest{Cwd: work})
			if !errors.As(err, &ue) {
				t.Fatalf("--require-trust: want a refusal naming %s, got %v", c.gatedKey, err)
			}
			for _, want := range []string{path, `"` + c.gatedKey + `"`, "tandem trust " + work} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal should name %q:\n%s", want, err)
				}
			}
			// Trusted, the same file is applied whole.
			if _, err := a.Trust.Add(work); err != nil {
				t.Fatal(err)
			}
			s, err = a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work})
			if err != nil || !s.Trusted || len(s.LeftOut) > 0 || s.claudeLeftOut {
				t.Errorf("trusted folder: %v %+v", err, s)
			}
		})
	}
}

func findWhy(f []trust.Finding, key string) string {
	for _, x := range f {
		if x.Key == key {
			return x.Why
		}
	}
	return ""
}

// keyVariants makes, for each key of the gated path that the body spells
// out, the body with that key in other case and the body with that key
// given twice (first as null): what encoding/json reads differently from
// a lookup by exact key.
func keyVariants(body, gatedKey string) map[string]string {
	out := map[string]string{}
	for _, seg := range strings.FieldsFunc(gatedKey, func(r rune) bool { return r == '.' || r == '[' }) {
		q := `"` + seg + `":`
		if !strings.Contains(body, q) {
			continue
		}
		for _, v := range []string{strings.ToUpper(seg[:1]) + seg[1:], strings.ToUpper(seg), strings.ToLower(seg)} {
			if v != seg {
				out["case "+v] = strings.Replace(body, q, `"`+v+`":`, 1)
			}
		}
		out["twice "+seg] = strings.Replace(body, q, q+"null,"+q, 1)
	}
	return out
}

// A case variant or a duplicate of every gated key is refused naming the
// file, or read exactly as the check reads it: left out with the rest.
// (encoding/json matched "Hooks" to hooks while the check looked up
// "hooks", so the hook ran in an untrusted folder.)
func TestGatedKeyVariants(t *testing.T) {
	// One app reads every variant, each in a folder of its own: the test is
	// about how a project file is read, and an app per variant (a fresh
	// store, migrated and synced to disk: ~280 of them) was most of the
	// package's run time.
	a, _ := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"})
	for _, c := range projectKeyCases {
		if c.gatedKey == "" {
			continue
		}
		variants := keyVariants(c.body, c.gatedKey)
		if len(variants) == 0 {
			t.Errorf("%s: no key of %s in the body to vary", c.body, c.gatedKey)
		}
		for name, body := range variants {
			t.Run(c.gatedKey+" "+name, func(t *testing.T) {
				work := testWork(t)
				path := filepath.Join(work, c.file)
				writeTestFile(t, path, body)
				s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work})
				if err != nil {
					if !strings.Contains(err.Error(), path) {
						t.Errorf("the error should name the file: %v", err)
					}
					return
				}
				// Read as the loader reads it (a key in other case that the
				// loader does not know is ignored by both).
				if got := appliedGated(t, a, s); len(got) > 0 {
					t.Errorf("%s: untrusted, applied: %v", body, got)
				}
			})
		}
	}
}

// Every top-level key of tandem's config that needs trust has a case in
// the list, so a key added later is tested (and documented) with the rest.
func TestGatedKeyListComplete(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range projectKeyCases {
		covered[strings.SplitN(c.gatedKey, ".", 2)[0]] = true
	}
	tp := reflect.TypeFor[config.Config]()
	for i := range tp.NumField() {
		name, _, _ := strings.Cut(tp.Field(i).Tag.Get("json"), ",")
		switch {
		case name == "" || name == "-" || projectKeys[name]:
		case name == "hooks", slices.Contains(config.UserOnlyKeys(), name):
			// refused in any project file by the config loader
		case !covered[name]:
			t.Errorf("top-level key %q needs trust but has no case in projectKeyCases", name)
		}
	}
}

func TestTrustCoversSubfoldersAndSymlinks(t *testing.T) {
	a, work := testApp(t, nil)
	sub := filepath.Join(work, "pkg", "inner")
	writeTestFile(t, filepath.Join(sub, ".tandem", "config.json"), `{"providers":{"anthropic":{"base_url":"http://127.0.0.1:1"}}}`)
	link := filepath.Join(filepath.Dir(work), "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	if s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: link}); err != nil || s.Trusted || s.Cwd != sub || len(s.LeftOut) != 1 {
		t.Fatalf("untrusted through a link: %+v %v", s, err)
	}
	// Trusting through a link stores the real path.
	wlink := filepath.Join(filepath.Dir(work), "worklink")
	if err := os.Symlink(work, wlink); err != nil {
		t.Fatal(err)
	}
	if real, err := a.Trust.Add(wlink); err != nil || real != work {
		t.Fatalf("trust through a link stored %q: %v", real, err)
	}
	if s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: link}); err != nil || !s.Trusted || s.TrustRoot != work {
		t.Fatalf("a subfolder of a trusted folder (through a link): %+v %v", s, err)
	}
	if _, err := a.Trust.Remove(sub); err == nil || !strings.Contains(err.Error(), work) {
		t.Errorf("revoking a subfolder should name the trusted parent: %v", err)
	}
	if _, err := a.Trust.Remove(work); err != nil {
		t.Fatal(err)
	}
	if s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: sub}); err != nil || s.Trusted || len(s.LeftOut) != 1 {
		t.Fatalf("revoked, still trusted: %+v %v", s, err)
	}
}

func TestTrustProjectOption(t *testing.T) {
	for name, a := range map[string]func(t *testing.T) (*App, string){
		"option": func(t *testing.T) (*App, string) { return testApp(t, nil, func(o *Options) { o.TrustProject = true }) },
		"env":    func(t *testing.T) (*App, string) { return testApp(t, map[string]string{"TANDEM_TRUST_PROJECT": "1"}) },
	} {
		app, work := a(t)
		writeTestFile(t, filepath.Join(work, ".tandem", "config.json"), `{"providers":{"anthropic":{"base_url":"http://127.0.0.1:1"}}}`)
		if s, err := app.ResolveSettings(context.Background(), SettingsRequest{Cwd: work}); err != nil || !s.Trusted {
			t.Fatalf("%s: %+v %v", name, s, err)
		}
	}
}

// ANTHROPIC_BASE_URL without a scheme used to be retried six times with
// "unsupported protocol scheme"; it is refused at start, by name.
func TestEnvBaseURLValidated(t *testing.T) {
	for _, v := range []string{"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"} {
		a, work := testApp(t, map[string]string{v: "localhost:8080", "ANTHROPIC_API_KEY": "k"})
		_, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, CheckModel: true})
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Field != v || !strings.Contains(err.Error(), "localhost:8080") {
			t.Errorf("%s: %v", v, err)
		}
	}
}

func TestResolveLaysRequestOverConfig(t *testing.T) {
	a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "k"})
	writeTestFile(t, filepath.Join(work, ".tandem", "config.json"), `{"model":"anthropic/claude-haiku-4-5","runtime":"auto","permission_mode":"explore","max_turns":4}`)
	s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work})
	if err != nil || s.Model != "anthropic/claude-haiku-4-5" || s.Runtime != "auto" || s.Mode != "explore" || s.MaxTurns != 4 {
		t.Fatalf("config: %+v %v", s, err)
	}
	s, err = a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, Model: "openai/gpt-5", Runtime: "native", Mode: "normal", MaxTurns: 9})
	if err != nil || s.Model != "openai/gpt-5" || s.Runtime != "native" || s.Mode != "normal" || s.MaxTurns != 9 {
		t.Fatalf("request: %+v %v", s, err)
	}
	if _, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work, Model: "nope-9", Runtime: "native", CheckModel: true}); err == nil || !strings.Contains(err.Error(), "nope-9") {
		t.Errorf("an unknown model passed the check: %v", err)
	}
}

// A setting added to tandem's config later is left out of an untrusted
// project until it is listed as safe.
func TestUnlistedProjectKeyNeedsTrust(t *testing.T) {
	file := filepath.Join(t.TempDir(), ".tandem", "config.json")
	l := config.Layer{File: file, Scope: "project", Config: &config.Config{Model: "a/b", Checkpoints: []byte(`{"x":1}`)}}
	gated, f, err := gateTandem(l, func(string) bool { return true })
	if err != nil || len(f) != 1 || f[0].Key != "checkpoints" || f[0].Why != whyUnlisted || gated.Checkpoints != nil || gated.Model != "a/b" {
		t.Errorf("findings: %+v %v", f, err)
	}
	if l.Checkpoints == nil {
		t.Error("the layer as read was changed")
	}
}

// A bad compaction section is refused when the settings are resolved, with
// the file and the key, before any turn starts.
func TestBadCompactionSettingRefusedEarly(t *testing.T) {
	a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "k"})
	writeTestFile(t, filepath.Join(work, ".tandem", "config.json"), `{"compaction":{"threshold":2}}`)
	_, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work})
	if err == nil || !strings.Contains(err.Error(), "compaction.threshold") || !strings.Contains(err.Error(), ".tandem/config.json") {
		t.Fatalf("err = %v", err)
	}
}
