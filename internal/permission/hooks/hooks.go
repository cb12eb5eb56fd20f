// Package hooks runs Claude Code-compatible hooks: programs (type
// "command") or URLs (type "http") named in settings (`hooks: {PreToolUse:
// [{matcher, hooks: [{type: "command", command, timeout}]}]}`) that get the
// event as JSON on stdin or in a POST body and answer with an exit code or
// HTTP status and optional JSON output.
package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Handler types that run; Claude Code's mcp_tool is accepted in settings
// and skipped. Prompt and agent hooks run through the runner's Judge (a
// model call, a sub-agent). TypeCallback hooks never come from settings:
// the program embedding tandem registers them (a Claude Agent SDK host's
// hook callbacks).
const (
	TypeCommand  = "command"
	TypeHTTP     = "http"
	TypePrompt   = "prompt"
	TypeAgent    = "agent"
	TypeCallback = "callback"
)

// Callback is a hook that lives in the program driving tandem: it gets the
// event and answers with Claude Code's hook JSON output (empty: no
// opinion), which is applied exactly as a command hook's stdout.
type Callback func(ctx context.Context, in Input) (json.RawMessage, error)

// Handler is one hook: a command run with `sh -c`, or a URL the input is
// POSTed to.
type Handler struct {
	Type    string `json:"type"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
	// Headers go with an http hook's request; $VAR and ${VAR} in their
	// values expand only for the variables named in AllowedEnvVars (others
	// become empty), so a settings file cannot exfiltrate the environment.
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowedEnvVars,omitempty"`
	// Timeout in seconds; 0 means the type's default (DefaultTimeout,
	// PromptTimeout, AgentTimeout).
	Timeout float64 `json:"timeout,omitempty"`
	// Async runs a command hook in the background: the event does not
	// wait for it, and what its JSON output says for the model or the user
	// (additionalContext, systemMessage) is delivered when it is done.
	Async bool `json:"async,omitempty"`
	// Prompt is a prompt or agent hook's question; $ARGUMENTS in it is the
	// event's input JSON. Model overrides the small model it is asked of.
	Prompt string `json:"prompt,omitempty"`
	Model  string `json:"model,omitempty"`
	// ContinueOnBlock keeps the turn going after a prompt hook answered
	// ok: false (Claude Code's default ends it, except for Stop and
	// SubagentStop, whose block is the instruction to go on).
	ContinueOnBlock bool `json:"continueOnBlock,omitempty"`
	// StatusMessage and Once are Claude Code's; accepted, not used.
	StatusMessage string `json:"statusMessage,omitempty"`
	Once          bool   `json:"once,omitempty"`
	// ID names a callback hook (the SDK's callback id) and Callback calls
	// it; neither can come from a settings file.
	ID       string   `json:"-"`
	Callback Callback `json:"-"`
}

// runs reports whether tandem runs this handler.
func (h Handler) runs() bool {
	switch h.Type {
	case TypeCommand, TypeHTTP, TypePrompt, TypeAgent:
		return true
	}
	return h.Type == TypeCallback && h.Callback != nil
}

// key identifies identical hooks, which run once per event (as in Claude
// Code: the same command or URL listed by two settings files).
func (h Handler) key() string {
	switch h.Type {
	case TypeHTTP:
		return "http\x00" + h.URL
	case TypeCallback:
		return "callback\x00" + h.ID
	case TypePrompt, TypeAgent:
		return h.Type + "\x00" + h.Model + "\x00" + h.Prompt
	}
	return "command\x00" + h.Command
}

func (h Handler) String() string {
	switch h.Type {
	case TypeHTTP:
		return h.URL
	case TypeCallback:
		return "callback " + h.ID
	case TypePrompt, TypeAgent:
		p := h.Prompt
		if len(p) > 60 {
			p = p[:60] + "…"
		}
		return h.Type + " " + strings.ReplaceAll(p, "\n", " ")
	}
	return h.Command
}

// Matcher selects what an event is about: a regexp over the tool name for
// tool events, over source, reason, notification_type, agent_type or
// trigger for the others ("Bash|Edit", "mcp__.*", "startup|resume"); empty
// or "*" matches all.
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

// Validate names the first malformed entry.
func (c Config) Validate() error {
	for ev, ms := range c {
		if !valid(ev) {
			return fmt.Errorf("hooks.%s: unknown event: use one of %s", ev, eventList())
		}
		for i, m := range ms {
			if _, err := compileMatcher(m.Matcher); err != nil {
				return fmt.Errorf("hooks.%s[%d].matcher %q: %w", ev, i, m.Matcher, err)
			}
			for j, h := range m.Hooks {
				where := fmt.Sprintf("hooks.%s[%d].hooks[%d]", ev, i, j)
				switch h.Type {
				case TypeCommand:
					if strings.TrimSpace(h.Command) == "" {
						return fmt.Errorf("%s.command is empty: give the program to run", where)
					}
				case TypeHTTP:
					if u, err := url.Parse(h.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
						return fmt.Errorf("%s.url %q is not an http(s) URL: give the address to POST the event to", where, h.URL)
					}
				case TypePrompt, TypeAgent:
					if strings.TrimSpace(h.Prompt) == "" {
						return fmt.Errorf("%s.prompt is empty: give the question the model answers with ok true or false", where)
					}
				default:
					continue
				}
				if h.Async && h.Type != TypeCommand {
					return fmt.Errorf("%s.async: only command hooks run in the background: drop async or make it a command hook", where)
				}
				if h.Timeout < 0 {
					return fmt.Errorf("%s.timeout is negative: give seconds, or leave it out for %s", where, DefaultTimeout)
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

// HasType reports whether any hook of c is of handler type t.
func (c Config) HasType(t string) bool {
	for _, ms := range c {
		for _, m := range ms {
			for _, h := range m.Hooks {
				if h.Type == t {
					return true
				}
			}
		}
	}
	return false
}

// ScriptPaths returns the files hook commands run (the first word of each
// command when it is a path), with $CLAUDE_PROJECT_DIR replaced: writes to
// them are protected, or a model could rewrite a hook and run it.
func (c Config) ScriptPaths(projectDir string) []string {
	var out []string
	for _, ms := range c {
		for _, m := range ms {
			for _, h := range m.Hooks {
				if h.Type != TypeCommand {
					continue
				}
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
