package subagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/skills"
)

// ScopeHost marks an agent the program driving tandem gave it (Claude
// Code's --agents flag, the Agent SDK's agents option in initialize). The
// host vouches for it, as for its --mcp-config servers: it is not a
// repository's file, so folder trust does not gate it; its permissionMode
// still only narrows the session's (Runner.childParent).
const ScopeHost skills.Scope = "host"

// hostName is the rule for a host-given agent's name: it becomes the
// Agent tool's subagent_type and a session title, so letters, digits,
// '-', '_' and '.' only.
var hostName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// hostIgnored are fields of Claude Code's AgentDefinition tandem accepts
// without acting on them (said in a warning).
var hostIgnored = map[string]string{
	"mcpServers":                          "an agent's own MCP servers are not supported; the session's are offered",
	"initialPrompt":                       "only used when the agent runs the main thread, which tandem does not do",
	"memory":                              "agent memory files are not supported",
	"background":                          "sub-agents run in the foreground",
	"omitClaudeMd":                        "sub-agents get the session's instructions",
	"autoCompactWindow":                   "sub-agents compact at the session's threshold",
	"criticalSystemReminder_EXPERIMENTAL": "not supported",
	"color":                               "no terminal colours for agents",
	"hooks":                               "agent-scoped hooks are not supported; register them for the session",
}

// ParseHost decodes sub-agents a host gives, in Claude Code's --agents
// shape ({"name": {"description", "prompt", "tools"?, "disallowedTools"?,
// "model"?, "permissionMode"?, "maxTurns"?, "skills"?, "effort"?}}), from
// source ("--agents", "initialize"). A bad name, a field of the wrong
// type, a missing description or prompt, a tools entry that is not a
// rule, or a model checkModel refuses is an error naming the agent, the
// field and the fix; fields tandem does not act on come back as warnings.
// checkModel (nil: no check) is given the model field as written, aliases
// included.
func ParseHost(raw json.RawMessage, source string, checkModel func(model string) error) ([]*Def, []string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, fmt.Errorf("%s: want a JSON object of agents, {\"name\": {\"description\": \"...\", \"prompt\": \"...\"}}: %v", source, err)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*Def
	var warns []string
	for _, n := range names {
		d, w, err := parseHostAgent(n, m[n], source, checkModel)
		if err != nil {
			return nil, nil, err
		}
		warns = append(warns, w...)
		out = append(out, d)
	}
	return out, warns, nil
}

func parseHostAgent(name string, raw json.RawMessage, source string, checkModel func(string) error) (*Def, []string, error) {
	if !hostName.MatchString(name) {
		return nil, nil, fmt.Errorf("%s: agent %q: the name may hold only letters, digits, '-', '_' and '.' (at most 64, starting with a letter or digit): rename it", source, name)
	}
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%s: agent %q: field %q: %s", source, name, field, fmt.Sprintf(format, args...))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, nil, fmt.Errorf("%s: agent %q: want an object {\"description\": \"...\", \"prompt\": \"...\"}, got %s", source, name, jsonKind(raw))
	}
	d := &Def{Name: name, Scope: ScopeHost, File: source}
	var warns []string
	str := func(field string, dst *string) error {
		v, ok := fields[field]
		if !ok || isNull(v) {
			return nil
		}
		if json.Unmarshal(v, dst) != nil {
			return bad(field, "want a string, got %s", jsonKind(v))
		}
		return nil
	}
	list := func(field string, dst *[]string) error {
		v, ok := fields[field]
		if !ok || isNull(v) {
			return nil
		}
		if json.Unmarshal(v, dst) != nil {
			return bad(field, "want a list of strings such as [\"Read\", \"Grep\"], got %s", jsonKind(v))
		}
		return nil
	}
	var mode, effort string
	for _, f := range []error{
		str("description", &d.Description), str("prompt", &d.Prompt), str("model", &d.Model), str("permissionMode", &mode),
		str("isolation", &d.Isolation),
		list("tools", &d.Tools), list("disallowedTools", &d.DisallowedTools), list("skills", &d.Skills),
	} {
		if f != nil {
			return nil, nil, f
		}
	}
	if strings.TrimSpace(d.Description) == "" {
		return nil, nil, bad("description", "missing: say when the model should use this agent")
	}
	if strings.TrimSpace(d.Prompt) == "" {
		return nil, nil, bad("prompt", "missing: give the agent's system prompt")
	}
	for _, field := range []string{"tools", "disallowedTools"} {
		entries := d.Tools
		if field == "disallowedTools" {
			entries = d.DisallowedTools
		}
		for _, e := range entries {
			if _, err := permission.ParseRule(e, permission.ActionAllow); err != nil {
				return nil, nil, bad(field, "%v", err)
			}
		}
	}
	if d.Model != "" && checkModel != nil {
		if err := checkModel(d.Model); err != nil {
			return nil, nil, bad("model", "%v (use inherit, sonnet, opus, haiku or a model tandem's config can reach)", err)
		}
	}
	if err := CheckIsolation(d.Isolation); err != nil {
		return nil, nil, bad("isolation", "%v", err)
	}
	if mode != "" {
		pm, err := permission.ParseMode(mode)
		if err != nil {
			return nil, nil, bad("permissionMode", "%v", err)
		}
		d.PermissionMode = pm
	}
	if v, ok := fields["maxTurns"]; ok && !isNull(v) {
		if json.Unmarshal(v, &d.MaxTurns) != nil || d.MaxTurns < 0 {
			return nil, nil, bad("maxTurns", "want a whole number of turns, got %s", string(v))
		}
	}
	if v, ok := fields["effort"]; ok && !isNull(v) {
		switch {
		case json.Unmarshal(v, &effort) == nil && slices.Contains(skills.Efforts, effort):
			d.Effort = effort
		case json.Unmarshal(v, &effort) == nil:
			return nil, nil, bad("effort", "%q is not an effort: use %s", effort, strings.Join(skills.Efforts, ", "))
		default:
			warns = append(warns, fmt.Sprintf("%s: agent %q: field \"effort\": a number is not supported; the session's effort is used", source, name))
		}
	}
	known := []string{"description", "prompt", "model", "permissionMode", "tools", "disallowedTools", "skills", "maxTurns", "effort", "isolation"}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch why, ignored := hostIgnored[k]; {
		case slices.Contains(known, k):
		case ignored:
			warns = append(warns, fmt.Sprintf("%s: agent %q: field %q is ignored: %s", source, name, k, why))
		default:
			// Newer SDKs add fields: reported, never fatal.
			warns = append(warns, fmt.Sprintf("%s: agent %q: field %q is not one tandem knows; ignored", source, name, k))
		}
	}
	return d, warns, nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// jsonKind names the JSON type of v for an error message.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '[':
		return "a list"
	case '{':
		return "an object"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
