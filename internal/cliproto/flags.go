// Package cliproto makes tandem answer the Claude Code CLI's own protocol,
// so programs built on the Claude Agent SDKs (which spawn `claude`) can run
// tandem in its place: Claude Code's flags, its stream-json messages, and
// the control protocol on the CLI's side (initialize, can_use_tool,
// hook_callback, interrupt, set_permission_mode, ...). Turns run through
// tandem's own session manager, permission engine and store.
package cliproto

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/structured"
)

// ProtocolVersion is the Claude Code release whose CLI protocol tandem
// speaks (and tests against); `-v` reports it first, as the SDKs expect a
// version number there.
const ProtocolVersion = "2.1.332"

// Flags are the Claude Code flags tandem acts on.
type Flags struct {
	Print                bool
	OutputFormat         string // text | json | stream-json
	InputFormat          string // text | stream-json
	Verbose              bool
	PermissionPromptTool string
	PermissionMode       string
	Resume               string
	SessionID            string
	ForkSession          bool
	Continue             bool
	MCPConfigs           []string
	StrictMCPConfig      bool
	Settings             string
	SettingSources       *string
	AllowedTools         []string
	DisallowedTools      []string
	Tools                *string
	Model                string
	FallbackModels       []string
	MaxTurns             int
	MaxBudgetUSD         float64
	SystemPrompt         *string
	AppendSystemPrompt   string
	AddDirs              []string
	// Worktree is --worktree/-w: the session works in a new git worktree
	// of that name (worktree.go).
	Worktree               string
	PluginDirs             []string // --plugin-dir: plugins for this run (internal/plugin)
	IncludePartialMessages bool
	JSONSchema             string
	Effort                 string
	MaxThinkingTokens      *int
	SkipPermissions        bool
	Home                   string
	Agents                 string // --agents: JSON, or a file of it
	Version                bool
	Prompt                 []string // positional arguments
}

// flagSpec is one row of the table of Claude Code flags: whether it takes
// a value, and what tandem does with it (nil: accepted and ignored, with
// the reason in ignored).
type flagSpec struct {
	value bool
	set   func(f *Flags, v string) error
}

// ignoredFlags are flags of the CLI tandem accepts without acting on them,
// with the reason (see docs/claude-code-cli.md, which lists them).
var ignoredFlags = map[string]struct {
	value  bool
	reason string
}{
	"--include-hook-events":                {false, "hook events are not forwarded"},
	"--debug":                              {false, "use --verbose"},
	"--debug-file":                         {true, "use --verbose"},
	"--betas":                              {true, "beta headers come from tandem's provider config"},
	"--agent":                              {true, "the main thread cannot run as a sub-agent; --agents defines sub-agents"},
	"--plugin-dir-no-mcp":                  {true, "plugins are not supported"},
	"--no-session-persistence":             {false, "tandem always stores sessions"},
	"--replay-user-messages":               {false, "user messages are not echoed"},
	"--await-initialize":                   {false, "initialize is always answered before the first turn"},
	"--resume-session-at":                  {true, "resuming at a message is not supported"},
	"--resume-drops-turn":                  {true, "resuming at a message is not supported"},
	"--task-budget":                        {true, "task budgets are not supported"},
	"--channels":                           {true, "channels are not supported"},
	"--session-mirror":                     {false, "transcripts are stored in tandem's database"},
	"--project-config-root":                {true, "tandem reads the project's config from the working folder"},
	"--initialize-fields":                  {true, "initialize fields are read from the request"},
	"--managed-settings":                   {true, "managed settings are not supported"},
	"--managed-settings-in-initialize":     {false, "managed settings are not supported"},
	"--thinking-display":                   {true, "thinking is always streamed"},
	"--allow-dangerously-skip-permissions": {false, "use --permission-mode bypassPermissions"},
	"--permission-prompts":                 {false, "permission prompts go through --permission-prompt-tool"},
	"--ide":                                {false, "no IDE integration"},
	"--chrome":                             {false, "no browser integration"},
}

func str(dst func(f *Flags) *string) func(*Flags, string) error {
	return func(f *Flags, v string) error { *dst(f) = v; return nil }
}

func list(dst func(f *Flags) *[]string) func(*Flags, string) error {
	return func(f *Flags, v string) error { *dst(f) = append(*dst(f), v); return nil }
}

func yes(dst func(f *Flags) *bool) func(*Flags, string) error {
	return func(f *Flags, _ string) error { *dst(f) = true; return nil }
}

var flagTable = map[string]flagSpec{
	"-p": {false, yes(func(f *Flags) *bool { return &f.Print })}, "--print": {false, yes(func(f *Flags) *bool { return &f.Print })},
	"--output-format":          {true, str(func(f *Flags) *string { return &f.OutputFormat })},
	"--input-format":           {true, str(func(f *Flags) *string { return &f.InputFormat })},
	"--verbose":                {false, yes(func(f *Flags) *bool { return &f.Verbose })},
	"--permission-prompt-tool": {true, str(func(f *Flags) *string { return &f.PermissionPromptTool })},
	"--permission-mode":        {true, str(func(f *Flags) *string { return &f.PermissionMode })},
	"-r":                       {true, str(func(f *Flags) *string { return &f.Resume })},
	"--resume":                 {true, str(func(f *Flags) *string { return &f.Resume })},
	"--session-id":             {true, str(func(f *Flags) *string { return &f.SessionID })},
	"--fork-session":           {false, yes(func(f *Flags) *bool { return &f.ForkSession })},
	"-c":                       {false, yes(func(f *Flags) *bool { return &f.Continue })},
	"--continue":               {false, yes(func(f *Flags) *bool { return &f.Continue })},
	"--mcp-config":             {true, list(func(f *Flags) *[]string { return &f.MCPConfigs })},
	"--strict-mcp-config":      {false, yes(func(f *Flags) *bool { return &f.StrictMCPConfig })},
	"--settings":               {true, str(func(f *Flags) *string { return &f.Settings })},
	"--setting-sources":        {true, func(f *Flags, v string) error { f.SettingSources = &v; return nil }},
	"--allowedTools":           {true, list(func(f *Flags) *[]string { return &f.AllowedTools })},
	"--allowed-tools":          {true, list(func(f *Flags) *[]string { return &f.AllowedTools })},
	"--disallowedTools":        {true, list(func(f *Flags) *[]string { return &f.DisallowedTools })},
	"--disallowed-tools":       {true, list(func(f *Flags) *[]string { return &f.DisallowedTools })},
	"--tools":                  {true, func(f *Flags, v string) error { f.Tools = &v; return nil }},
	"--model":                  {true, str(func(f *Flags) *string { return &f.Model })},
	"--json-schema": {true, func(f *Flags, v string) error {
		if _, err := structured.Compile([]byte(v)); err != nil {
			return fmt.Errorf("--json-schema: %w", err)
		}
		f.JSONSchema = v
		return nil
	}},
	"--fallback-model": {true, func(f *Flags, v string) error {
		for _, m := range strings.Split(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				f.FallbackModels = append(f.FallbackModels, normalizeModel(m))
			}
		}
		return nil
	}},
	"--max-turns": {true, func(f *Flags, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("--max-turns %q: give a whole number, 0 for no limit", v)
		}
		f.MaxTurns = n
		return nil
	}},
	"--max-budget-usd": {true, func(f *Flags, v string) error {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			return fmt.Errorf("--max-budget-usd %q: give a positive amount in US dollars", v)
		}
		f.MaxBudgetUSD = n
		return nil
	}},
	"--system-prompt": {true, func(f *Flags, v string) error { f.SystemPrompt = &v; return nil }},
	"--system-prompt-file": {true, func(f *Flags, v string) error {
		b, err := os.ReadFile(v)
		if err != nil {
			return fmt.Errorf("--system-prompt-file: %w", err)
		}
		s := string(b)
		f.SystemPrompt = &s
		return nil
	}},
	"--append-system-prompt": {true, str(func(f *Flags) *string { return &f.AppendSystemPrompt })},
	"--append-system-prompt-file": {true, func(f *Flags, v string) error {
		b, err := os.ReadFile(v)
		if err != nil {
			return fmt.Errorf("--append-system-prompt-file: %w", err)
		}
		f.AppendSystemPrompt = string(b)
		return nil
	}},
	"--add-dir":                  {true, list(func(f *Flags) *[]string { return &f.AddDirs })},
	"--worktree":                 {true, setWorktree},
	"-w":                         {true, setWorktree},
	"--plugin-dir":               {true, list(func(f *Flags) *[]string { return &f.PluginDirs })},
	"--include-partial-messages": {false, yes(func(f *Flags) *bool { return &f.IncludePartialMessages })},
	"--effort": {true, func(f *Flags, v string) error {
		if err := config.CheckEffort(v); err != nil {
			return fmt.Errorf("--effort: %w", err)
		}
		f.Effort = v
		return nil
	}},
	"--max-thinking-tokens": {true, func(f *Flags, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("--max-thinking-tokens %q: give a whole number of tokens", v)
		}
		f.MaxThinkingTokens = &n
		return nil
	}},
	"--thinking": {true, func(f *Flags, v string) error {
		switch v {
		case "disabled":
			zero := 0
			f.MaxThinkingTokens = &zero
		case "adaptive", "enabled":
		default:
			return fmt.Errorf("--thinking %q: use adaptive, enabled or disabled", v)
		}
		return nil
	}},
	"--dangerously-skip-permissions": {false, yes(func(f *Flags) *bool { return &f.SkipPermissions })},
	"--home":                         {true, str(func(f *Flags) *string { return &f.Home })},
	"--agents":                       {true, str(func(f *Flags) *string { return &f.Agents })},
	"-v":                             {false, yes(func(f *Flags) *bool { return &f.Version })},
	"--version":                      {false, yes(func(f *Flags) *bool { return &f.Version })},
}

// Parse reads Claude Code's command line. Flags tandem does not know are
// reported in warnings and skipped, never fatal: the SDKs add flags with
// every release. A flag given as --name=value keeps its value; an unknown
// flag without "=" is taken as a switch.
func Parse(args []string) (Flags, []string, error) {
	f := Flags{OutputFormat: "text", InputFormat: "text"}
	var warns []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			f.Prompt = append(f.Prompt, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			f.Prompt = append(f.Prompt, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		if spec, ok := flagTable[name]; ok {
			if spec.value && !hasVal {
				if i+1 >= len(args) {
					return f, warns, fmt.Errorf("%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if err := spec.set(&f, val); err != nil {
				return f, warns, err
			}
			continue
		}
		if ig, ok := ignoredFlags[name]; ok {
			if ig.value && !hasVal && i+1 < len(args) {
				i++
			}
			warns = append(warns, fmt.Sprintf("%s is ignored: %s", name, ig.reason))
			continue
		}
		warns = append(warns, fmt.Sprintf("%s is not a flag tandem knows; ignored", name))
	}
	return f, warns, f.validate()
}

func (f Flags) validate() error {
	switch f.OutputFormat {
	case "text", "json", "stream-json":
	default:
		return fmt.Errorf("--output-format %q: use text, json or stream-json", f.OutputFormat)
	}
	switch f.InputFormat {
	case "text":
	case "stream-json":
		if f.OutputFormat != "stream-json" {
			return fmt.Errorf("--input-format stream-json needs --output-format stream-json")
		}
	default:
		return fmt.Errorf("--input-format %q: use text or stream-json", f.InputFormat)
	}
	if f.Resume != "" && f.Continue {
		return fmt.Errorf("--resume and --continue both pick a session: use one")
	}
	if f.SessionID != "" {
		// The id becomes a folder name; Claude Code takes only a UUID too.
		if err := session.CheckUUID("--session-id", f.SessionID); err != nil {
			return err
		}
	}
	if f.SessionID != "" && (f.Resume != "" || f.Continue) && !f.ForkSession {
		return fmt.Errorf("--session-id names a new session: with --resume or --continue it needs --fork-session")
	}
	if f.PermissionMode != "" {
		if _, err := ParseMode(f.PermissionMode); err != nil {
			return err
		}
	}
	return nil
}

// KnownFlags lists the flags tandem acts on and those it ignores, for the
// documentation test.
func KnownFlags() (acted, ignored []string) {
	for n := range flagTable {
		acted = append(acted, n)
	}
	for n := range ignoredFlags {
		ignored = append(ignored, n)
	}
	sort.Strings(acted)
	sort.Strings(ignored)
	return acted, ignored
}
