// Package claudecode is the claude-code runtime: it lets an installed Claude
// Code CLI be the agent for one turn while tandem keeps the interfaces,
// sessions, permissions and cost records. The CLI is driven the way the
// Claude Agent SDKs drive it (stream-json on stdin and stdout plus the
// control protocol); every permission decision is routed to the same
// permission.Checker the native runtime uses. docs/claude-code-runtime.md
// describes the design and its trade-offs.
package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
)

// Defaults applied by Config.withDefaults.
const (
	// DefaultMinVersion is the oldest CLI the runtime accepts. The control
	// protocol (initialize with hook callbacks, can_use_tool over stdio,
	// --tools) and system/api_retry messages are all present from 2.0.0;
	// the runtime is tested against 2.1.332.
	DefaultMinVersion       = "2.0.0"
	DefaultFirstByteTimeout = 60 * time.Second
	// DefaultTurnTimeout bounds a whole turn. Agent turns with long tool
	// runs can take a while, so the default is generous.
	DefaultTurnTimeout = 30 * time.Minute
)

// DefaultAllowedTools returns the built-in tool set offered to the model
// when Config.AllowedTools is empty. It matches the native runtime's
// tools, sub-agents (Agent, which the CLI also knows as Task) and skills
// included.
func DefaultAllowedTools() []string {
	return []string{"Read", "Write", "Edit", "Bash", "Glob", "Grep", "NotebookEdit", "TodoWrite", "Agent", "Skill", "WebFetch", "WebSearch"}
}

// Duration is a time.Duration that reads from JSON as a Go duration string
// ("90s", "2m") or a number of seconds, and writes as a string.
type Duration time.Duration

// MarshalJSON writes the duration as a string such as "1m0s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON accepts "90s"-style strings and plain numbers of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w (use a value such as \"90s\" or \"5m\")", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration %s: want a string such as \"90s\" or a number of seconds", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// Config is the "claude_code" section of tandem's configuration.
type Config struct {
	// Path is the claude executable; empty means search (see Find).
	Path string `json:"path,omitempty"`
	// MinVersion overrides DefaultMinVersion.
	MinVersion string `json:"min_version,omitempty"`
	// FirstByteTimeout bounds the wait for the model's first output after
	// each request the CLI makes (0: DefaultFirstByteTimeout).
	FirstByteTimeout Duration `json:"first_byte_timeout,omitempty"`
	// TurnTimeout bounds a whole turn (0: DefaultTurnTimeout).
	TurnTimeout Duration `json:"turn_timeout,omitempty"`
	// AllowedTools is the built-in tool set the model gets (passed as
	// --tools, never as --allowedTools, which would auto-approve them).
	// Empty means DefaultAllowedTools.
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// UseUserMCP lets the user's own MCP servers (from Claude Code's
	// settings) in; by default only tandem's servers are passed.
	UseUserMCP bool `json:"use_user_mcp,omitempty"`
	// AllowRoot sets IS_SANDBOX=1 so Claude Code accepts bypass modes when
	// run as root (containers). Without it such a launch is refused with a
	// clear error.
	AllowRoot bool `json:"allow_root,omitempty"`
	// IncludePartialMessages streams text and thinking deltas; nil means
	// true.
	IncludePartialMessages *bool `json:"include_partial_messages,omitempty"`
	// ExtraArgs are appended to the CLI's arguments.
	ExtraArgs []string `json:"extra_args,omitempty"`
	// Env adds to (or overrides) the CLI's environment.
	Env map[string]string `json:"env,omitempty"`
}

// Validate reports configuration mistakes with the setting to fix.
func (c Config) Validate() error {
	var errs []error
	if c.MinVersion != "" {
		if _, ok := parseVersion(c.MinVersion); !ok {
			errs = append(errs, fmt.Errorf("claude_code.min_version %q: want a version such as \"2.1.0\"", c.MinVersion))
		}
	}
	if c.FirstByteTimeout < 0 {
		errs = append(errs, errors.New("claude_code.first_byte_timeout must not be negative"))
	}
	if c.TurnTimeout < 0 {
		errs = append(errs, errors.New("claude_code.turn_timeout must not be negative"))
	}
	for _, t := range c.AllowedTools {
		if strings.TrimSpace(t) == "" || strings.ContainsAny(t, ", ()") {
			errs = append(errs, fmt.Errorf("claude_code.allowed_tools: %q is not a tool name (list names such as \"Read\", one per entry)", t))
		}
	}
	for _, a := range c.ExtraArgs {
		if reservedArg(a) {
			errs = append(errs, fmt.Errorf("claude_code.extra_args: %q is set by tandem itself and cannot be overridden", a))
		}
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			errs = append(errs, fmt.Errorf("claude_code.env: %q is not a valid variable name", k))
		}
	}
	return errors.Join(errs...)
}

// reservedArg reports flags the runtime depends on; overriding them would
// break the protocol or bypass tandem's permission checks.
func reservedArg(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	switch name {
	case "--output-format", "--input-format", "--permission-prompt-tool", "--permission-mode",
		"--resume", "-r", "--continue", "-c", "--allowedTools", "--allowed-tools",
		"--dangerously-skip-permissions", "--allow-dangerously-skip-permissions":
		return true
	}
	return false
}

func (c Config) firstByteTimeout() time.Duration {
	if c.FirstByteTimeout > 0 {
		return time.Duration(c.FirstByteTimeout)
	}
	return DefaultFirstByteTimeout
}

func (c Config) turnTimeout() time.Duration {
	if c.TurnTimeout > 0 {
		return time.Duration(c.TurnTimeout)
	}
	return DefaultTurnTimeout
}

func (c Config) tools() []string {
	if len(c.AllowedTools) > 0 {
		return c.AllowedTools
	}
	return DefaultAllowedTools()
}

func (c Config) partial() bool {
	return c.IncludePartialMessages == nil || *c.IncludePartialMessages
}

func (c Config) minVersion() string {
	if c.MinVersion != "" {
		return c.MinVersion
	}
	return DefaultMinVersion
}

// Options are what the runtime gets from the rest of tandem's
// configuration: the provider to talk to and tandem's MCP servers.
type Options struct {
	// SettingSources, when set, is passed as --setting-sources: the
	// settings files the CLI reads ("user" keeps it from reading a
	// project's .claude/settings*.json, whose keys such as env or
	// apiKeyHelper an untrusted folder may not set; "" reads none). nil:
	// the CLI's default.
	SettingSources *string
	// ProviderName is the provider part of "provider/model"; it is stripped
	// from the model name passed to the CLI.
	ProviderName string
	// BaseURL, APIKey and AuthToken reach an Anthropic-compatible API
	// (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN). When any
	// is set, inherited ANTHROPIC_* credentials are dropped so that what is
	// configured is what is used.
	BaseURL   string
	APIKey    string
	AuthToken string
	// MCPConfig is {"mcpServers":{...}} JSON for tandem's MCP servers,
	// passed with --mcp-config. Empty means none.
	MCPConfig []byte
	// DisallowedTools are deny rules of the session's configuration
	// (MCP servers' disabled_tools as mcp__server__tool), added to each
	// turn's own.
	DisallowedTools []string
	// Observer, when set, hears of every tool call the CLI runs (before and
	// after), as the native runtime's wrapped tools are seen.
	Observer ToolObserver
	// Agents are tandem's config-defined sub-agents in the CLI's
	// AgentDefinition shape, sent in initialize (the CLI reads
	// .claude/agents itself).
	Agents map[string]any
	// AddDirs are extra folders passed with --add-dir: one holding the
	// skills the CLI would not find on its own (.agents/skills, tandem's
	// folders) under .claude/skills.
	AddDirs []string
	// PluginDirs are the folders of the session's plugins (the user's
	// enabled tandem plugins and a run's --plugin-dir), passed with the
	// CLI's --plugin-dir so their commands, skills, agents and output
	// styles reach it by the CLI's own names (plugin:name). Their hooks and
	// MCP servers stay tandem's: the CLI runs no hooks (disableAllHooks)
	// and, with --strict-mcp-config, only tandem's --mcp-config servers.
	PluginDirs []string
	// Effort and ThinkingBudget are the configured model's (tandem's
	// "effort" and "thinking_budget"); a turn's own Effort and
	// ThinkingBudget win over them. Empty and 0: the CLI's defaults.
	Effort         string
	ThinkingBudget int64
	// Hooks runs tandem's hooks for the events the CLI reports; nil: none.
	Hooks HookForwarder
	// Confine puts the CLI, and so every command it runs, inside the
	// session's OS sandbox (internal/sandbox); nil: the sandbox is off.
	// With it set, the CLI's nonessential traffic (telemetry, update
	// checks) is turned off unless claude_code.env says otherwise: the
	// sandbox's proxy would refuse it, one denial each.
	Confine func(*exec.Cmd) error
	// Denials says what the sandbox refused a tool call of the CLI,
	// inferred from its result (sandbox_denial events, emitted after the
	// tool_result); nil: none.
	Denials func(output, cwd string) []event.Event
	// Logger receives debug notes (ignored message types, undecodable
	// lines); nil means slog.Default().
	Logger *slog.Logger
}

// version is a parsed major.minor.patch.
type version [3]int

func parseVersion(s string) (version, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	end := 0
	for end < len(s) && (s[end] == '.' || (s[end] >= '0' && s[end] <= '9')) {
		end++
	}
	parts := strings.Split(s[:end], ".")
	if len(parts) != 3 {
		return version{}, false
	}
	var v version
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return version{}, false
		}
		v[i] = n
	}
	return v, true
}

func (v version) less(o version) bool {
	for i := range v {
		if v[i] != o[i] {
			return v[i] < o[i]
		}
	}
	return false
}
