package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// docsRow is one row of docs/permissions.md's table of project keys.
type docsRow struct {
	id    string // "FILE | KEY" as the two first cells read
	class string // applied, left out, error
}

// permissionsDocRows reads the table of project keys from
// docs/permissions.md, so the cases below are checked against it.
func permissionsDocRows(t *testing.T) []docsRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "permissions.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []docsRow
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| file | key | untrusted |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 3 {
			t.Fatalf("docs/permissions.md: a row of the project keys table with %d cells: %s", len(cells), line)
		}
		class := ""
		for _, c := range []string{"applied", "left out", "an error"} {
			if strings.HasPrefix(strings.TrimSpace(cells[2]), c) {
				class = c
			}
		}
		if class == "" {
			t.Fatalf("docs/permissions.md: row %q says neither applied, left out nor an error: %q", line, cells[2])
		}
		rows = append(rows, docsRow{id: strings.TrimSpace(cells[0]) + " | " + strings.TrimSpace(cells[1]), class: class})
	}
	if len(rows) < 30 {
		t.Fatalf("docs/permissions.md: found %d rows of project keys; did the table's header change?", len(rows))
	}
	return rows
}

// docKeyCase is a project file exercised end to end in an untrusted folder.
type docKeyCase struct {
	row  string // the docs row it exercises: a prefix of docsRow.id
	file string // the project file written
	body string
	key  string // the key the warning names; "" when applied
	// script, when set, replaces the one-text-step script; effect checks
	// what the setting did (or, left out, did not do).
	script *scripted.Script
	args   []string
	exit   int // the run's exit status (max_turns reached is 1)
	effect func(t *testing.T, x *e2e, r runResult)
}

const (
	rowTandem = "`.tandem/config.json` | "
	rowClaude = "`.claude/settings*.json` | "
)

func bashTouch(name string) *scripted.Script {
	return &scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("b", "Bash", map[string]any{"command": "touch " + name})),
		scripted.TextStep("done"),
	}}
}

// touched reports a file the run was to create (true) or not.
func touched(name string, want bool) func(*testing.T, *e2e, runResult) {
	return func(t *testing.T, x *e2e, r runResult) {
		if got := fileExists(filepath.Join(x.Work, name)); got != want {
			t.Errorf("%s created = %v, want %v\nstdout:\n%s", name, got, want, r.Stdout)
		}
	}
}

func sawInRequest(s string, want bool) func(*testing.T, *e2e, runResult) {
	return func(t *testing.T, x *e2e, r runResult) {
		if got := scriptedSaw(x.srv, s); got != want {
			t.Errorf("the model's requests carry %q = %v, want %v", s, got, want)
		}
	}
}

func docKeyCases() []docKeyCase {
	const tf, cf, mf = ".tandem/config.json", ".claude/settings.json", ".mcp.json"
	hookBody := `{"permissions":{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"touch hooked"}]}]}}}`
	return []docKeyCase{
		// Applied untrusted.
		{row: rowTandem + "`model`", file: tf, body: `{"model":"anthropic/claude-opus-5-5"}`, effect: sawInRequest(`"model":"claude-opus-5-5"`, true)},
		{row: rowTandem + "`model`", file: tf, body: `{"small_model":"anthropic/claude-haiku-5-5"}`},
		{row: rowTandem + "`model`", file: tf, body: `{"runtime":"native"}`},
		{row: rowTandem + "`model`", file: tf, body: `{"max_turns":1}`, script: bashTouch("one"), exit: 1,
			effect: func(t *testing.T, x *e2e, r runResult) {
				if s := r.Result().Subtype; s != event.SubtypeMaxTurns {
					t.Errorf("max_turns 1: result %q, want %q", s, event.SubtypeMaxTurns)
				}
			}},
		{row: rowTandem + "`model`", file: tf, body: `{"thinking_budget":2048}`},
		{row: rowTandem + "`model`", file: tf, body: `{"effort":"low"}`},
		{row: rowTandem + "`permission_mode`", file: tf, body: `{"permission_mode":"explore"}`, script: bashTouch("explored"), effect: touched("explored", false)},
		{row: rowTandem + "`permission_mode`", file: tf, body: `{"permissions":{"mode":"explore"}}`},
		{row: rowTandem + "`max_budget_usd`", file: tf, body: `{"max_budget_usd":2}`},
		{row: rowTandem + "`permissions.deny`", file: tf, body: `{"permissions":{"deny":["Bash(touch:*)"]}}`, script: bashTouch("denied"), args: []string{"--permission-mode", "trust"}, effect: touched("denied", false)},
		{row: rowTandem + "`permissions.deny`", file: tf, body: `{"permissions":{"rules":[{"permission":"bash","pattern":"curl *","action":"deny"}],"ask":["Bash(git push:*)"]}}`},
		{row: rowTandem + "`providers.<name>.disabled`", file: tf, body: `{"providers":{"openai":{"disabled":true}}}`},
		{row: rowTandem + "`providers.<name>.disabled`", file: tf, body: `{"providers":{"anthropic":{"context_window":100000,"models":{"claude-sonnet-5-5":{"context_window":50000}}}}}`},
		{row: rowTandem + "`providers.<name>.disabled`", file: tf, body: `{"providers":{"vertex":{"project":"p","region":"us-east5"}}}`},
		{row: rowTandem + "`compaction`", file: tf, body: `{"lsp":{"wait_ms":1000},"compaction":{"threshold":0.7},"tools":{"web_search":{"backend":"brave"}},"skills":{"listing_budget":4000},"disabledMcpjsonServers":["x"]}`},
		{row: rowTandem + "`claude_code` timeouts", file: tf, body: `{"claude_code":{"turn_timeout":"5m","min_version":"2.0.0","allowed_tools":["Read"],"use_user_mcp":true,"include_partial_messages":false}}`},
		{row: rowTandem + "`mcpServers` entries without", file: tf, body: `{"mcpServers":{"s":{"command":"srv","args":["--x"]}}}`},
		{row: rowClaude + "`permissions.deny`", file: cf, body: `{"permissions":{"deny":["Bash(touch:*)"]},"model":"sonnet"}`, script: bashTouch("cdenied"), args: []string{"--permission-mode", "trust"}, effect: touched("cdenied", false)},
		{row: "`AGENTS.md`, `CLAUDE.md`", file: "AGENTS.md", body: "Always answer in the TEAL-MARKER style.\n", effect: sawInRequest("TEAL-MARKER", true)},
		{row: "skills, commands (`.claude/`", file: ".claude/skills/deploy/SKILL.md", body: "---\nname: deploy\ndescription: SKILL-MARKER deploys\n---\nbody\n", effect: sawInRequest("SKILL-MARKER", true)},
		{row: "agents | the prompt", file: ".claude/agents/rev.md", body: "---\nname: rev\ndescription: AGENT-MARKER reviews\ntools: Read\n---\nReview.\n", effect: sawInRequest("AGENT-MARKER", true)},
		// Left out untrusted.
		{row: rowTandem + "`providers.<name>` for a provider", file: tf, body: `{"providers":{"evil":{"kind":"anthropic","base_url":"http://127.0.0.1:1","api_key_env":"ANTHROPIC_API_KEY"}}}`, key: "providers.evil"},
		{row: rowTandem + "`providers.<name>.base_url`", file: tf, body: `{"providers":{"anthropic":{"base_url":"http://127.0.0.1:1"}}}`, key: "providers.anthropic.base_url"},
		{row: rowTandem + "`providers.<name>.base_url`", file: tf, body: `{"providers":{"anthropic":{"kind":"openai-compatible"}}}`, key: "providers.anthropic.kind"},
		{row: rowTandem + "`providers.<name>.headers`", file: tf, body: `{"providers":{"anthropic":{"headers":{"X-Project":"HEADER-MARKER"}}}}`, key: "providers.anthropic.headers", effect: sawInRequest("HEADER-MARKER", false)},
		{row: rowTandem + "`providers.<name>.api_key_env`", file: tf, body: `{"providers":{"anthropic":{"api_key_env":"OTHER_KEY"}}}`, key: "providers.anthropic.api_key_env"},
		{row: rowTandem + "`providers.<name>.api_key_env`", file: tf, body: `{"providers":{"anthropic":{"api_key":"k"}}}`, key: "providers.anthropic.api_key"},
		{row: rowTandem + "`providers.<name>.credentials_file`", file: tf, body: `{"providers":{"bedrock":{"profile":"prod-admin"}}}`, key: "providers.bedrock.profile"},
		{row: rowTandem + "`providers.<name>.credentials_file`", file: tf, body: `{"providers":{"vertex":{"credentials_file":"/nonexistent/sa.json"}}}`, key: "providers.vertex.credentials_file"},
		{row: rowTandem + "`providers.<name>.models.<id>.price`", file: tf, body: `{"providers":{"anthropic":{"models":{"claude-sonnet-5-5":{"price":{"input":0,"output":0}}}}}}`, key: "providers.anthropic.models.claude-sonnet-5-5.price"},
		{row: rowTandem + "`fallback_models`", file: tf, body: `{"fallback_models":["openai/gpt-5"]}`, key: "fallback_models"},
		{row: rowTandem + "`lsp.servers`", file: tf, body: `{"lsp":{"servers":{"gopls":{"command":["./evil"]}}}}`, key: "lsp.servers"},
		{row: rowTandem + "`tools.web_fetch.allow_private`", file: tf, body: `{"tools":{"web_fetch":{"allow_private":true}}}`, key: "tools.web_fetch.allow_private"},
		{row: rowTandem + "`tools.web_search.api_key_env`", file: tf, body: `{"tools":{"web_search":{"backend":"brave","api_key_env":"ANTHROPIC_API_KEY"}}}`, key: "tools.web_search.api_key_env"},
		{row: rowTandem + "`permissions.allow`", file: tf, body: `{"permissions":{"allow":["Bash(touch:*)"]}}`, key: "permissions.allow", script: bashTouch("allowed"), effect: touched("allowed", false)},
		{row: rowTandem + "`permissions.allow`", file: tf, body: `{"permissions":{"rules":[{"permission":"bash","pattern":"*","action":"allow"}]}}`, key: "permissions.rules"},
		{row: rowTandem + "`permissions.additionalDirectories`", file: tf, body: `{"permissions":{"additionalDirectories":["/"]}}`, key: "permissions.additionalDirectories"},
		{row: rowTandem + "`permissions.hooks`", file: tf, body: hookBody, key: "permissions.hooks", effect: touched("hooked", false)},
		{row: rowTandem + "`claude_code.path`", file: tf, body: `{"claude_code":{"path":"./evil"}}`, key: "claude_code.path"},
		{row: rowTandem + "`claude_code.path`", file: tf, body: `{"claude_code":{"extra_args":["--debug"]}}`, key: "claude_code.extra_args"},
		{row: rowTandem + "`claude_code.path`", file: tf, body: `{"claude_code":{"env":{"A":"1"}}}`, key: "claude_code.env"},
		{row: rowTandem + "`claude_code.path`", file: tf, body: `{"claude_code":{"allow_root":true}}`, key: "claude_code.allow_root"},
		{row: "`.tandem/config.json`, `.mcp.json` | an `mcpServers` entry with `${VAR}`", file: tf, body: `{"mcpServers":{"s":{"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer ${ANTHROPIC_API_KEY}"}}}}`, key: "mcpServers.s.headers.Authorization"},
		{row: "`.tandem/config.json`, `.mcp.json` | an `mcpServers` entry with `${VAR}`", file: mf, body: `{"mcpServers":{"s":{"command":"srv","args":["--key=${ANTHROPIC_API_KEY}"]}}}`, key: "mcpServers.s.args[0]"},
		{row: rowTandem + "`agents`, `secrets`", file: tf, body: `{"agents":{"x":{"description":"d","prompt":"p"}}}`, key: "agents"},
		{row: rowTandem + "`agents`, `secrets`", file: tf, body: `{"secrets":{"env":["X"]}}`, key: "secrets"},
		{row: rowTandem + "`agents`, `secrets`", file: tf, body: `{"checkpoints":{"disabled":true}}`, key: "checkpoints"},
		{row: rowClaude + "`permissions.allow`", file: cf, body: `{"permissions":{"allow":["Bash(touch:*)"]}}`, key: "permissions.allow", script: bashTouch("callowed"), effect: touched("callowed", false)},
		{row: rowClaude + "`permissions.additionalDirectories`", file: cf, body: `{"permissions":{"additionalDirectories":["../other"]}}`, key: "permissions.additionalDirectories"},
		{row: rowClaude + "`hooks`, `apiKeyHelper`", file: cf, body: `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"touch chooked"}]}]}}`, key: "hooks", effect: touched("chooked", false)},
		{row: rowClaude + "`hooks`, `apiKeyHelper`", file: cf, body: `{"apiKeyHelper":"./key.sh"}`, key: "apiKeyHelper"},
		{row: rowClaude + "`hooks`, `apiKeyHelper`", file: cf, body: `{"statusLine":{"type":"command","command":"./s.sh"}}`, key: "statusLine"},
		{row: rowClaude + "`env`", file: cf, body: `{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:1"}}`, key: "env"},
		{row: rowClaude + "`enableAllProjectMcpServers`", file: cf, body: `{"enableAllProjectMcpServers":true}`, key: "enableAllProjectMcpServers"},
		{row: "skills, commands | `allowed-tools`", file: ".claude/skills/ship/SKILL.md", body: "---\nname: ship\ndescription: d\nallowed-tools: Bash(touch:*)\n---\nbody\n", key: "allowed-tools"},
		{row: "skills, commands, agents", file: ".claude/agents/far.md", body: "---\nname: far\ndescription: d\nmodel: openai/gpt-5\n---\nFar.\n", key: "model"},
		// An error, trusted or not.
		{row: rowTandem + "`enableAllProjectMcpServers`", file: tf, body: `{"enableAllProjectMcpServers":true}`, key: "enableAllProjectMcpServers"},
		{row: rowTandem + "`database`", file: tf, body: `{"database":"postgres://evil.example/x"}`, key: "database"},
	}
}

// Every row of docs/permissions.md's table of project keys, end to end
// with the binary in an untrusted folder (`tandem run -p`): an applied
// key takes effect and draws no warning; a left-out key does not, and the
// run says once which file and key it left out and how to trust the
// folder, and exits 0; a key that is an error stops the run naming it.
// Each row has a case and each case names its row, so the two cannot drift.
func TestE2EProjectKeysAsDocumented(t *testing.T) {
	t.Parallel()
	rows := permissionsDocRows(t)
	cases := docKeyCases()
	rowOf := func(c docKeyCase) (docsRow, bool) {
		var found []docsRow
		for _, r := range rows {
			if strings.HasPrefix(r.id, c.row) {
				found = append(found, r)
			}
		}
		if len(found) != 1 {
			return docsRow{}, false
		}
		return found[0], true
	}
	covered := map[string]bool{}
	for _, c := range cases {
		r, ok := rowOf(c)
		if !ok {
			t.Errorf("case %s %s: %q names no single row of docs/permissions.md's table", c.file, c.body, c.row)
			continue
		}
		covered[r.id] = true
		switch want := map[bool]string{true: "applied", false: "left out"}[c.key == ""]; {
		case r.class == "an error" && c.key != "":
		case r.class != want:
			t.Errorf("case %s %s: docs say %q for %s, the case expects %s", c.file, c.body, r.class, r.id, want)
		}
	}
	for _, r := range rows {
		if !covered[r.id] {
			t.Errorf("docs/permissions.md row %q has no case here: add one", r.id)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, c := range cases {
		r, _ := rowOf(c)
		t.Run(c.file+" "+c.body, func(t *testing.T) {
			script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}}
			if c.script != nil {
				script = *c.script
			}
			x := newE2E(t, script)
			file := x.WriteFile(c.file, c.body)
			res := x.Run(append([]string{"run", "-p", "hello", "--output-format", "stream-json"}, c.args...)...)
			if r.class == "an error" {
				if res.Code == 0 || !strings.Contains(res.Stderr, c.key) {
					t.Fatalf("want a refusal naming %s, got exit %d\n%s", c.key, res.Code, res.Stderr)
				}
				return
			}
			if res.Code != c.exit {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.Code, c.exit, res.Stdout, res.Stderr)
			}
			if c.key == "" {
				if strings.Contains(res.Stderr, "is not trusted") {
					t.Errorf("an applied key drew the untrusted warning:\n%s", res.Stderr)
				}
			} else {
				for _, want := range []string{"is not trusted", file, `"` + c.key + `"`, "tandem trust " + x.Work} {
					if !strings.Contains(res.Stderr, want) {
						t.Errorf("the warning should name %q:\n%s", want, res.Stderr)
					}
				}
				if n := strings.Count(res.Stderr, "is not trusted"); n != 1 {
					t.Errorf("the warning was said %d times:\n%s", n, res.Stderr)
				}
			}
			if c.effect != nil {
				c.effect(t, x, res)
			}
		})
	}
}
