package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools/fs"
	"github.com/tandem-agent/tandem/internal/turn"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

func TestConfigJSONAndValidate(t *testing.T) {
	var c Config
	if err := json.Unmarshal([]byte(`{"path":"/x/claude","first_byte_timeout":"90s","turn_timeout":120,"allowed_tools":["Read","Bash"],"include_partial_messages":false}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.firstByteTimeout() != 90*time.Second || c.turnTimeout() != 2*time.Minute || c.partial() {
		t.Errorf("decoded %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	b, _ := json.Marshal(Config{FirstByteTimeout: Duration(time.Minute)})
	if !strings.Contains(string(b), `"first_byte_timeout":"1m0s"`) {
		t.Errorf("encoded %s", b)
	}
	bad := []struct {
		cfg  Config
		want string
	}{
		{Config{MinVersion: "two"}, "min_version"},
		{Config{TurnTimeout: -1}, "turn_timeout"},
		{Config{AllowedTools: []string{"Bash(git *)"}}, "allowed_tools"},
		{Config{ExtraArgs: []string{"--permission-mode=bypassPermissions"}}, "extra_args"},
		{Config{Env: map[string]string{"A=B": "x"}}, "env"},
	}
	for _, b := range bad {
		if err := b.cfg.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: error %v, want mention of %s", b.cfg, err, b.want)
		}
	}
	var d Duration
	if err := json.Unmarshal([]byte(`"soon"`), &d); err == nil {
		t.Error("bad duration accepted")
	}
}

// fakeCLI writes a script that prints a version.
func fakeCLI(t *testing.T, version string) string {
	p := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+version+" (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFind(t *testing.T) {
	info, err := Find(Config{Path: fakeCLI(t, "2.1.332")})
	if err != nil || !info.OK || info.Version != "2.1.332" {
		t.Errorf("good CLI: %+v, %v", info, err)
	}
	info, err = Find(Config{Path: fakeCLI(t, "1.0.44")})
	if err == nil || info.OK || !strings.Contains(info.Problem, "too old") || !strings.Contains(info.Problem, DefaultMinVersion) {
		t.Errorf("old CLI: %+v, %v", info, err)
	}
	info, err = Find(Config{Path: fakeCLI(t, "2.1.332"), MinVersion: "3.0.0"})
	if err == nil || !strings.Contains(info.Problem, "3.0.0") {
		t.Errorf("min version: %+v", info)
	}
	info, err = Find(Config{Path: "/nonexistent/claude"})
	if err == nil || !strings.Contains(info.Problem, "claude_code.path") || !strings.Contains(info.Problem, "npm install") {
		t.Errorf("missing CLI: %+v", info)
	}
	info, err = Find(Config{Path: fakeCLI(t, "garbage")})
	if err == nil || !strings.Contains(info.Problem, "cannot read the version") {
		t.Errorf("garbage version: %+v", info)
	}
}

func TestFindSearchesPATH(t *testing.T) {
	dir := filepath.Dir(fakeCLI(t, "2.5.0"))
	t.Setenv("PATH", dir)
	info, err := Find(Config{})
	if err != nil || info.Path != filepath.Join(dir, "claude") {
		t.Errorf("%+v, %v", info, err)
	}
}

func TestAutoSelect(t *testing.T) {
	good := Config{Path: fakeCLI(t, "2.1.332")}
	missing := Config{Path: "/nonexistent/claude"}
	cases := []struct {
		req     runtimes.Name
		kind    string
		cfg     Config
		want    runtimes.Name
		wantErr bool
	}{
		{"auto", "anthropic", good, runtimes.ClaudeCode, false},
		{"", "anthropic", missing, runtimes.Native, false},
		{"auto", "openai", good, runtimes.Native, false},
		{"native", "anthropic", good, runtimes.Native, false},
		{"claude-code", "anthropic", good, runtimes.ClaudeCode, false},
		{"claude-code", "anthropic", missing, "", true},
		{"bogus", "anthropic", good, "", true},
	}
	for _, c := range cases {
		sel, err := AutoSelect(c.req, c.cfg, c.kind)
		if (err != nil) != c.wantErr || sel.Runtime != c.want {
			t.Errorf("AutoSelect(%q, %q): %+v, %v", c.req, c.kind, sel, err)
		}
		if sel.Reason == "" && err == nil {
			t.Errorf("AutoSelect(%q, %q): no reason", c.req, c.kind)
		}
	}
}

func TestDoctor(t *testing.T) {
	r := Doctor(Config{Path: fakeCLI(t, "2.1.332")})
	if !r.OK() || !strings.Contains(r.String(), "Claude Code 2.1.332") {
		t.Errorf("report:\n%s", r)
	}
	r = Doctor(Config{Path: "/nonexistent/claude", MinVersion: "x"})
	if r.OK() || !strings.Contains(r.String(), "[FAIL] cli") || !strings.Contains(r.String(), "[FAIL] config") {
		t.Errorf("report:\n%s", r)
	}
}

func TestBuildArgs(t *testing.T) {
	in := turn.Input{Cwd: "/w", Roots: []string{"/w", "/extra"}, Model: "anthropic/claude-sonnet-5-5",
		MaxTurns: 7, MaxBudgetUSD: 2.5, AppendSystemPrompt: "be brief", DisallowedTools: []string{"Bash(rm *)"}, AllowedTools: []string{"Bash"}}
	args := buildArgs(Config{}, Options{MCPConfig: []byte(`{"mcpServers":{}}`), PluginDirs: []string{"/p/greeter", "-odd"}}, in, launch{resumeID: "-abc"})
	joined := strings.Join(args, " ")
	for _, want := range []string{
		"--output-format stream-json --verbose", "--permission-prompt-tool stdio", "--permission-mode default",
		"--tools Read,Write,Edit,Bash,Glob,Grep,NotebookEdit,TodoWrite", "--include-partial-messages",
		"--model claude-sonnet-5-5", "--resume=-abc", "--append-system-prompt be brief", "--max-turns 7",
		"--max-budget-usd 2.5", "--disallowedTools Bash(rm *)", "--add-dir /extra", `--mcp-config {"mcpServers":{}}`, "--strict-mcp-config",
		`--settings {"disableAllHooks":true}`, "--plugin-dir=/p/greeter", "--plugin-dir=-odd",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("args lack %q:\n%s", want, joined)
		}
	}
	if slices.Contains(args, "--allowedTools") || strings.Contains(joined, "--add-dir /w ") {
		t.Errorf("args must not auto-approve tools nor re-add the cwd:\n%s", joined)
	}
	if args[len(args)-2] != "--input-format" || args[len(args)-1] != "stream-json" {
		t.Errorf("input format not last: %v", args[len(args)-2:])
	}
	off := false
	args = buildArgs(Config{UseUserMCP: true, IncludePartialMessages: &off, AllowedTools: []string{"Read"}}, Options{ProviderName: "kimi"}, turn.Input{Model: "kimi/k2"}, launch{})
	joined = strings.Join(args, " ")
	if strings.Contains(joined, "--strict-mcp-config") || strings.Contains(joined, "--include-partial") || strings.Contains(joined, "--resume") ||
		!strings.Contains(joined, "--tools Read ") || !strings.Contains(joined, "--model k2") || strings.Contains(joined, "--plugin-dir") {
		t.Errorf("args: %s", joined)
	}
}

func TestChildEnv(t *testing.T) {
	parent := []string{"PATH=/bin", "CLAUDECODE=1", "ANTHROPIC_API_KEY=inherited", "ANTHROPIC_AUTH_TOKEN=tok", "KEEP=1"}
	env := childEnv(parent, Config{AllowRoot: true, Env: map[string]string{"KEEP": "2"}}, Options{BaseURL: "http://x", APIKey: "mine"})
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("duplicate %s", k)
		}
		got[k] = v
	}
	want := map[string]string{"PATH": "/bin", "ANTHROPIC_API_KEY": "mine", "ANTHROPIC_BASE_URL": "http://x", "IS_SANDBOX": "1", "KEEP": "2", "DISABLE_AUTOUPDATER": "1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"CLAUDECODE", "ANTHROPIC_AUTH_TOKEN"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s kept", k)
		}
	}
	// Without configured credentials the inherited ones stay.
	env = childEnv(parent, Config{}, Options{})
	if !slices.Contains(env, "ANTHROPIC_API_KEY=inherited") || slices.Contains(env, "IS_SANDBOX=1") {
		t.Errorf("env %v", env)
	}
	// tandem's other credentials never reach the CLI (whose Bash tool runs
	// the model's commands); Bedrock's reach it when Bedrock is chosen.
	others := append(parent, "OPENAI_API_KEY=sk-o", "TANDEM_TOKEN=t", "AWS_SECRET_ACCESS_KEY=aws")
	env = childEnv(others, Config{}, Options{})
	if slices.Contains(env, "OPENAI_API_KEY=sk-o") || slices.Contains(env, "TANDEM_TOKEN=t") || slices.Contains(env, "AWS_SECRET_ACCESS_KEY=aws") {
		t.Errorf("credentials reached the CLI: %v", env)
	}
	env = childEnv(append(others, "CLAUDE_CODE_USE_BEDROCK=1"), Config{}, Options{})
	if !slices.Contains(env, "AWS_SECRET_ACCESS_KEY=aws") || slices.Contains(env, "OPENAI_API_KEY=sk-o") {
		t.Errorf("bedrock: %v", env)
	}
}

// pipeProc is a proc whose stdin is a buffer, for controller tests.
type bufCloser struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *bufCloser) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}
func (b *bufCloser) Close() error { return nil }
func (b *bufCloser) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}

func TestControllerAnswersCLIRequests(t *testing.T) {
	out := &bufCloser{}
	p := &proc{stdin: out}
	calls := 0
	checker := checkerFunc(func(_ context.Context, r permission.Request) (permission.Decision, error) {
		calls++
		if r.Tool == "Write" {
			return permission.Decision{Behavior: permission.Deny, Message: "no writes"}, nil
		}
		if !r.ReadOnly || r.Cwd != "/w" || r.SessionID != "s1" {
			t.Errorf("request %+v", r)
		}
		return permission.Decision{Behavior: permission.Allow}, nil
	})
	// The session's tools: Read says it is read-only (tool.ReadOnly), as
	// every guard reads it; the controller keeps no list of names.
	c := newController(p, checker, tool.NewRegistry(fs.NewRead()), "s1", "/w", func(string) {})
	send := func(line string) {
		m, _, err := ParseLine([]byte(line))
		if err != nil || !c.handle(m) {
			t.Fatalf("not handled: %s (%v)", line, err)
		}
	}
	send(`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Read","input":{"file_path":"a"},"tool_use_id":"t1"}}`)
	send(`{"type":"control_request","request_id":"r2","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"b"},"tool_use_id":"t2"}}`)
	send(`{"type":"control_request","request_id":"r3","request":{"subtype":"hook_callback","callback_id":"tandem_pre_tool_use","input":{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{},"tool_use_id":"t1"}}}`)
	send(`{"type":"control_request","request_id":"r4","request":{"subtype":"elicitation"}}`)
	c.wg.Wait()
	byID := map[string]map[string]any{}
	for _, l := range out.lines() {
		var env struct {
			Type     string         `json:"type"`
			Response map[string]any `json:"response"`
		}
		if err := json.Unmarshal([]byte(l), &env); err != nil || env.Type != "control_response" {
			t.Fatalf("bad line %s", l)
		}
		byID[env.Response["request_id"].(string)] = env.Response
	}
	if r := byID["r1"]; r["subtype"] != "success" || r["response"].(map[string]any)["behavior"] != "allow" ||
		r["response"].(map[string]any)["updatedInput"].(map[string]any)["file_path"] != "a" {
		t.Errorf("r1 %v", r)
	}
	if r := byID["r2"]; r["response"].(map[string]any)["behavior"] != "deny" || r["response"].(map[string]any)["message"] != "no writes" {
		t.Errorf("r2 %v", r)
	}
	hso := byID["r3"]["response"].(map[string]any)["hookSpecificOutput"].(map[string]any)
	if hso["permissionDecision"] != "allow" || hso["hookEventName"] != "PreToolUse" {
		t.Errorf("r3 %v", hso)
	}
	if r := byID["r4"]; r["subtype"] != "error" || !strings.Contains(r["error"].(string), "unsupported") {
		t.Errorf("unknown request must get an error response: %v", r)
	}
	if calls != 2 {
		t.Errorf("checker called %d times; the hook and can_use_tool for one call must ask once", calls)
	}
}

func TestControllerCancelledRequestGetsNoReply(t *testing.T) {
	out := &bufCloser{}
	c := newController(&proc{stdin: out}, checkerFunc(func(ctx context.Context, _ permission.Request) (permission.Decision, error) {
		<-ctx.Done()
		return permission.Decision{}, ctx.Err()
	}), nil, "s", "/w", func(string) {})
	m, _, _ := ParseLine([]byte(`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{},"tool_use_id":"t"}}`))
	c.handle(m)
	m, _, _ = ParseLine([]byte(`{"type":"control_cancel_request","request_id":"r1"}`))
	c.handle(m)
	c.wg.Wait()
	if out.Len() != 0 {
		t.Errorf("replied to a cancelled request: %s", out.String())
	}
}

func TestControllerRequestMatchesResponse(t *testing.T) {
	out := &bufCloser{}
	c := newController(&proc{stdin: out}, nil, nil, "s", "/w", func(string) {})
	done := make(chan error, 1)
	go func() {
		_, err := c.request(context.Background(), map[string]any{"subtype": "set_model", "model": "x"})
		done <- err
	}()
	var id string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if l := out.lines(); l[0] != "" {
			var req struct {
				RequestID string `json:"request_id"`
			}
			_ = json.Unmarshal([]byte(l[0]), &req)
			id = req.RequestID
			break
		}
	}
	if !strings.HasPrefix(id, "req_1_") {
		t.Fatalf("request id %q", id)
	}
	m, _, _ := ParseLine([]byte(`{"type":"control_response","response":{"subtype":"error","request_id":"` + id + `","error":"nope"}}`))
	c.handle(m)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err %v", err)
	}
}

func TestCrashReportsExitStatusAndStderr(t *testing.T) {
	p := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo '2.1.332 (Claude Code)'; exit 0; fi\necho 'fatal: something broke' >&2\nexit 3\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	log := &turntest.Events{}
	rec := &turntest.Recorder{}
	rt := New(Config{Path: p}, Options{})
	res, err := rt.RunTurn(context.Background(), turn.Input{SessionID: "s", Prompt: "hi", Cwd: t.TempDir()},
		turn.Deps{Events: event.NewEmitter("s", 0, log), Recorder: rec, Checker: permission.AllowAll{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != event.SubtypeError || !strings.Contains(res.Error, "exit status 3") || !strings.Contains(res.Error, "something broke") {
		t.Errorf("result %+v", res)
	}
	if evs := log.All(); len(evs) != 2 || evs[0].Type != event.Result || evs[1].Type != event.Done {
		t.Errorf("events %+v", evs)
	}
	if len(rec.Messages()) != 1 || rec.Messages()[0].PlainText() != "hi" {
		t.Errorf("prompt not recorded: %+v", rec.Messages())
	}
}

func TestRootBypassRefused(t *testing.T) {
	if !isRoot() {
		t.Skip("only meaningful as root")
	}
	log := &turntest.Events{}
	rt := New(Config{Path: fakeCLI(t, "2.1.332"), ExtraArgs: []string{"--settings", `{"permissions":{"defaultMode":"bypassPermissions"}}`}}, Options{})
	res, _ := rt.RunTurn(context.Background(), turn.Input{Prompt: "hi", Cwd: t.TempDir()}, turn.Deps{Events: event.NewEmitter("s", 0, log)})
	if !strings.Contains(res.Error, "allow_root") {
		t.Errorf("result %+v", res)
	}
}

func TestProcReadsHugeLines(t *testing.T) {
	// A 3 MB line (a base64 image, a big tool result) must arrive whole.
	script := `head -c 3000000 /dev/zero | tr '\0' 'a' > big; printf '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"%s"}]}}\n' "$(cat big)"; echo 'not json'; echo '{"type":"result","subtype":"success"}'`
	p, err := startProc("/bin/sh", []string{"-c", script}, os.Environ(), t.TempDir(), func(string) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []Msg
	for m := range p.lines {
		got = append(got, m)
	}
	p.shutdown(time.Second)
	if len(got) != 2 || got[1].Type != "result" {
		t.Fatalf("got %d messages", len(got))
	}
	if n := len(toolResultText(got[0].Message.Blocks()[0].Content)); n != 3000000 {
		t.Errorf("tool result of %d bytes", n)
	}
}

// An approved Bash call runs without the credentials the CLI holds.
func TestBashRunsWithoutCLICredentials(t *testing.T) {
	in := json.RawMessage(`{"command":"env","timeout":5000}`)
	out, ok := withoutCLICredentials(in, []string{"CLAUDE_CODE_USE_BEDROCK=1"})
	var got map[string]any
	if !ok || json.Unmarshal(out, &got) != nil {
		t.Fatalf("%s %v", out, ok)
	}
	cmd, _ := got["command"].(string)
	for _, want := range []string{"unset ", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "AWS_SECRET_ACCESS_KEY", "; env"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %q", cmd, want)
		}
	}
	if got["timeout"] != float64(5000) {
		t.Errorf("other fields changed: %v", got)
	}
	// Idempotent: a decision reused for the hook and can_use_tool.
	again, _ := withoutCLICredentials(out, []string{"CLAUDE_CODE_USE_BEDROCK=1"})
	if string(again) != string(out) {
		t.Errorf("rewritten twice: %s", again)
	}
	if _, ok := withoutCLICredentials(json.RawMessage(`{}`), nil); ok {
		t.Errorf("no command: nothing to rewrite")
	}
}
