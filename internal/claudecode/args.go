package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/turn"
)

// launch is everything that shapes one CLI process.
type launch struct {
	resumeID string // Claude Code session to resume; empty starts a new one
	resumeAt string // resume the transcript at this entry (after a rewind)
}

// buildArgs assembles the CLI's arguments. Permission design: the CLI runs
// in its default mode with --permission-prompt-tool stdio and a PreToolUse
// hook registered at initialize, so every tool call reaches tandem's
// Checker; --tools restricts the built-in set and --allowedTools is never
// passed because it would approve calls without asking tandem.
func buildArgs(cfg Config, opts Options, in turn.Input, l launch) []string {
	args := []string{
		"-p", "--output-format", "stream-json", "--verbose",
		"--permission-prompt-tool", "stdio", "--permission-mode", "default",
		"--tools", strings.Join(cfg.tools(), ","),
		// tandem runs the hooks (through callbacks), so none runs twice.
		"--settings", disableAllHooksSettings,
	}
	if opts.SettingSources != nil {
		args = append(args, "--setting-sources="+*opts.SettingSources)
	}
	if cfg.partial() {
		args = append(args, "--include-partial-messages")
	}
	if m := modelName(in.Model, opts.ProviderName); m != "" {
		args = append(args, "--model", m)
	}
	if l.resumeID != "" {
		// Always with "=": a value starting with "-" would otherwise be
		// read as a flag.
		args = append(args, "--resume="+l.resumeID)
		if l.resumeAt != "" {
			// A rewound conversation goes on from an earlier entry; the
			// transcript's later entries stay in the file, off the chain.
			args = append(args, "--resume-session-at="+l.resumeAt)
		}
	}
	if in.SystemPrompt != "" {
		args = append(args, "--system-prompt", in.SystemPrompt)
	}
	if in.AppendSystemPrompt != "" {
		args = append(args, "--append-system-prompt", in.AppendSystemPrompt)
	}
	args = append(args, turnFlags(opts, in)...) // turnflags.go
	if in.MaxTurns > 0 {
		args = append(args, "--max-turns", strconv.Itoa(in.MaxTurns))
	}
	if in.MaxBudgetUSD > 0 {
		args = append(args, "--max-budget-usd", strconv.FormatFloat(in.MaxBudgetUSD, 'f', -1, 64))
	}
	if d := permission.NewToolFilter(nil, append(slices.Clip(in.DisallowedTools), opts.DisallowedTools...)).Disallowed(); d != "" {
		// Deny rules only take away, so passing them cannot bypass tandem;
		// the CLI applies the same rule (mcp__server covers its tools).
		args = append(args, "--disallowedTools", d)
	}
	for _, r := range extraRoots(in) {
		args = append(args, "--add-dir", r)
	}
	for _, r := range opts.AddDirs {
		args = append(args, "--add-dir", r)
	}
	for _, d := range opts.PluginDirs {
		// With "=": a folder starting with "-" is not read as a flag.
		args = append(args, "--plugin-dir="+d)
	}
	if len(opts.MCPConfig) > 0 {
		args = append(args, "--mcp-config", string(opts.MCPConfig))
	}
	if !cfg.UseUserMCP {
		args = append(args, "--strict-mcp-config")
	}
	args = append(args, cfg.ExtraArgs...)
	// Last, as the SDKs do.
	return append(args, "--input-format", "stream-json")
}

// extraRoots are the workspace roots other than the working folder.
func extraRoots(in turn.Input) []string {
	cwd := filepath.Clean(in.Cwd)
	var out []string
	seen := map[string]bool{cwd: true}
	for _, r := range in.Roots {
		r = filepath.Clean(r)
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	return out
}

// modelName turns tandem's "provider/model" into the CLI's model name.
func modelName(spec, provider string) string {
	for _, p := range []string{"anthropic/", "claude-code/"} {
		spec = strings.TrimPrefix(spec, p)
	}
	if provider != "" {
		spec = strings.TrimPrefix(spec, provider+"/")
	}
	return spec
}

// childEnv is the CLI's environment: the parent's minus CLAUDECODE (which
// makes the CLI refuse to start "inside another Claude Code session"),
// with the configured provider replacing inherited credentials, then the
// user's additions.
func childEnv(parent []string, cfg Config, opts Options) []string {
	provider := opts.BaseURL != "" || opts.APIKey != "" || opts.AuthToken != ""
	drop := map[string]bool{"CLAUDECODE": true, "CLAUDE_CODE_ENTRYPOINT": true}
	if provider {
		for _, k := range []string{"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"} {
			drop[k] = true
		}
	}
	env := make([]string, 0, len(parent)+8)
	for _, kv := range cliSecrets(parent).ScrubEnv(parent) {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	set := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	set("ANTHROPIC_BASE_URL", opts.BaseURL)
	set("ANTHROPIC_API_KEY", opts.APIKey)
	set("ANTHROPIC_AUTH_TOKEN", opts.AuthToken)
	// A driven CLI must not replace itself in the middle of a session.
	set("DISABLE_AUTOUPDATER", "1")
	// Sub-agents and shells run in the foreground: a turn ends with its
	// result, so a background agent would be cut off (or finish unseen)
	// and its report never reach the model. claude_code.env may override.
	set("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1")
	if cfg.AllowRoot {
		set("IS_SANDBOX", "1")
	}
	if opts.Confine != nil {
		set("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	}
	for k, v := range cfg.Env {
		env = append(env, k+"="+v)
	}
	return dedupeEnv(env)
}

// cliSecrets keeps tandem's other credentials (OpenAI and other provider
// keys, the server token, ...) from the CLI, which runs the model's
// commands with its own environment; what the CLI needs to reach Claude
// passes: the Anthropic key or token, and cloud credentials when the user
// chose Bedrock or Vertex.
func cliSecrets(parent []string) secrets.Policy {
	return secrets.New(nil, cliCredentials(parent))
}

// cliCredentials names the credentials the CLI is given.
func cliCredentials(parent []string) []string {
	pass := []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}
	for _, kv := range parent {
		switch k, v, _ := strings.Cut(kv, "="); {
		case k == "CLAUDE_CODE_USE_BEDROCK" && v != "" && v != "0":
			pass = append(pass, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK")
		case k == "CLAUDE_CODE_USE_VERTEX" && v != "" && v != "0":
			pass = append(pass, "GOOGLE_APPLICATION_CREDENTIALS")
		}
	}
	return pass
}

// withoutCLICredentials rewrites an approved Bash call so that the command
// runs without the credentials the CLI holds: the CLI starts the model's
// commands with its own environment. It returns false when the input has
// no command (the CLI reports that itself).
func withoutCLICredentials(input json.RawMessage, parent []string) (json.RawMessage, bool) {
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return nil, false
	}
	cmd, ok := in["command"].(string)
	if !ok || cmd == "" {
		return nil, false
	}
	prefix := "unset " + strings.Join(cliCredentials(parent), " ") + " 2>/dev/null; "
	if strings.HasPrefix(cmd, prefix) {
		return input, true
	}
	in["command"] = prefix + cmd
	out, err := json.Marshal(in)
	if err != nil {
		return nil, false
	}
	return out, true
}

// dedupeEnv keeps the last value of each variable, as a shell would.
func dedupeEnv(env []string) []string {
	last := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	out := env[:0:0]
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if last[k] == i {
			out = append(out, kv)
		}
	}
	return out
}

// wantsBypass reports extra arguments that ask for a bypass mode, which
// Claude Code refuses as root unless IS_SANDBOX=1.
func wantsBypass(args []string) bool {
	for _, a := range args {
		if strings.Contains(a, "bypassPermissions") {
			return true
		}
	}
	return false
}

func isRoot() bool { return os.Getuid() == 0 }

func osEnviron() []string { return os.Environ() }
