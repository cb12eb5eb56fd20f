// Package hooks runs Claude Code-compatible command hooks: programs named
// in settings (`hooks: {PreToolUse: [{matcher, hooks: [{type: "command",
// command, timeout}]}]}`) that get the event as JSON on stdin and answer
// with an exit code and optional JSON on stdout.
package hooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Event names.
const (
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
)

// Handler is one hook command.
type Handler struct {
	Type    string  `json:"type"`              // only "command" runs; others are ignored
	Command string  `json:"command"`           // run with `sh -c`
	Timeout float64 `json:"timeout,omitempty"` // seconds; 0 means 60
}

// Matcher selects tools by name: a regexp over the tool name ("Bash|Edit",
// "mcp__.*"); empty or "*" matches all.
type Matcher struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Handler `json:"hooks"`
}

// Config maps an event name to its matchers, as in Claude Code's settings.
type Config map[string][]Matcher

// Merge appends the matchers of several configs (user, project, local,
// tandem's own), in order.
func Merge(cfgs ...Config) Config {
	out := Config{}
	for _, c := range cfgs {
		for ev, ms := range c {
			out[ev] = append(out[ev], ms...)
		}
	}
	return out
}

var knownEvents = map[string]bool{PreToolUse: true, PostToolUse: true, UserPromptSubmit: true, Stop: true,
	"PostToolUseFailure": true, "Notification": true, "SubagentStop": true, "PreCompact": true,
	"SessionStart": true, "SessionEnd": true, "PermissionRequest": true}

// Validate names the first malformed entry.
func (c Config) Validate() error {
	for ev, ms := range c {
		if !knownEvents[ev] {
			return fmt.Errorf("hooks.%s: unknown event: use PreToolUse, PostToolUse, UserPromptSubmit or Stop", ev)
		}
		for i, m := range ms {
			if _, err := compileMatcher(m.Matcher); err != nil {
				return fmt.Errorf("hooks.%s[%d].matcher %q: %w", ev, i, m.Matcher, err)
			}
			for j, h := range m.Hooks {
				if h.Type != "command" {
					continue
				}
				if strings.TrimSpace(h.Command) == "" {
					return fmt.Errorf("hooks.%s[%d].hooks[%d].command is empty: give the program to run", ev, i, j)
				}
				if h.Timeout < 0 {
					return fmt.Errorf("hooks.%s[%d].hooks[%d].timeout is negative: give seconds, or leave it out for 60", ev, i, j)
				}
			}
		}
	}
	return nil
}

func compileMatcher(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	re, err := regexp.Compile("^(?:" + m + ")$")
	if err != nil {
		return nil, fmt.Errorf("not a regular expression: %w", err)
	}
	return re, nil
}

func (m Matcher) matches(tool string) bool {
	re, err := compileMatcher(m.Matcher)
	if err != nil {
		return m.Matcher == tool
	}
	return re == nil || re.MatchString(tool)
}

// ScriptPaths returns the files hook commands run (the first word of each
// command when it is a path), with $CLAUDE_PROJECT_DIR replaced: writes to
// them are protected, or a model could rewrite a hook and run it.
func (c Config) ScriptPaths(projectDir string) []string {
	var out []string
	for _, ms := range c {
		for _, m := range ms {
			for _, h := range m.Hooks {
				cmd := strings.NewReplacer("${CLAUDE_PROJECT_DIR}", projectDir, "$CLAUDE_PROJECT_DIR", projectDir,
					"${TANDEM_PROJECT_DIR}", projectDir, "$TANDEM_PROJECT_DIR", projectDir, `"`, "", "'", "").Replace(h.Command)
				for _, w := range strings.Fields(cmd) {
					if strings.Contains(w, "/") {
						out = append(out, w)
					}
				}
			}
		}
	}
	return out
}

// Input is what a hook reads on stdin (Claude Code's field names).
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path,omitempty"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode,omitempty"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	StopHookActive bool            `json:"stop_hook_active,omitempty"`
}

// Decisions a hook can make.
const (
	DecisionNone  = ""
	DecisionAllow = "allow"
	DecisionAsk   = "ask"
	DecisionDeny  = "deny" // PreToolUse deny, or "block" for the other events
)

// Outcome combines every matching hook's answer.
type Outcome struct {
	// Decision is the strongest decision: deny beats ask beats allow.
	Decision string
	// Reason explains a deny or block (stderr of exit 2, or the JSON
	// reason); it goes to the model.
	Reason string
	// UpdatedInput rewrites the tool input (PreToolUse).
	UpdatedInput json.RawMessage
	// AdditionalContext is text for the model (UserPromptSubmit stdout,
	// additionalContext).
	AdditionalContext string
	// Stop is true when a hook answered `"continue": false`; StopReason says why.
	Stop       bool
	StopReason string
	// SystemMessage is shown to the user.
	SystemMessage string
	// Errors are non-blocking failures (other exit codes, timeouts).
	Errors []string
}
