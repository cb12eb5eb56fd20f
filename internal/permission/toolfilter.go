package permission

import (
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

// ToolFilter is what --allowedTools / --disallowedTools (and the API's
// disallowed_tools) say about which tools a turn has. A disallowed entry
// without a pattern ("Bash", "mcp__github", "mcp__github__*", "Edit")
// takes every tool its permission rule covers away from the model, with
// the same matching the permission engine applies to the deny rule, so a
// tool is never offered only to be denied. Entries with a pattern
// ("Bash(rm:*)") are permission rules and leave the tool offered. Allowed
// entries, when there are any, restrict the offer to the tools they name
// (patterns included: "Bash(git:*)" keeps Bash).
type ToolFilter struct {
	allowed, disallowed []Rule
	entries             []string   // disallowed entries as given, split
	files               fileLookup // see WithTools
}

// NewToolFilter reads flag or API values (each may hold several entries,
// split as ParseToolFlags does). Malformed entries match by exact name;
// ParseToolFlags reports them where flags are read.
func NewToolFilter(allowed, disallowed []string) ToolFilter {
	var f ToolFilter
	read := func(vals []string, action Action, entries *[]string) []Rule {
		var out []Rule
		for _, v := range vals {
			for _, item := range SplitToolList(v) {
				r, err := ParseRule(item, action)
				if err != nil {
					r = Rule{Permission: item, Action: action}
				}
				out = append(out, r)
				if entries != nil {
					*entries = append(*entries, item)
				}
			}
		}
		return out
	}
	f.allowed = read(allowed, ActionAllow, nil)
	f.disallowed = read(disallowed, ActionDeny, &f.entries)
	return f
}

// WithTools is f judging which tools `Read` and `Edit` entries cover
// by what the tools declare of the files their calls touch (lookup: the
// turn's tools, as EngineOptions.Tools finds them for the engine;
// without it no tool reads or writes files). A tool whose declaration
// writes is taken away by --disallowedTools Edit, one that reads by Read,
// whatever its name, as the engine's deny rule denies its calls.
func (f ToolFilter) WithTools(lookup tool.Lookup) ToolFilter {
	f.files = lookup
	return f
}

// Offered reports whether the model gets the tool named name.
func (f ToolFilter) Offered(name string) bool {
	for _, r := range f.disallowed {
		if r.Pattern == "" && r.matchesTool(name, f.files) {
			return false
		}
	}
	if len(f.allowed) == 0 {
		return true
	}
	for _, r := range f.allowed {
		if r.matchesTool(name, f.files) {
			return true
		}
	}
	return false
}

// Filter keeps the offered names, in order.
func (f ToolFilter) Filter(names []string) []string {
	var out []string
	for _, n := range names {
		if f.Offered(n) {
			out = append(out, n)
		}
	}
	return out
}

// Disallowed is the disallowed entries, one each, for a CLI that applies
// the same rules itself (Claude Code's --disallowedTools).
func (f ToolFilter) Disallowed() string { return strings.Join(f.entries, ",") }
