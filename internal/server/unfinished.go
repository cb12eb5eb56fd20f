package server

import (
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/tool"
)

// unfinishedCall is a tool call the stopped replica began and never
// recorded a result for: it may have run in part or in whole.
type unfinishedCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Repeatable: the tool declares that it changes nothing (read-only) or
	// nothing outside the session (contained), so running it again is
	// harmless. Anything else (a command, an edit, a fetch that posts)
	// may have taken effect already.
	Repeatable bool `json:"repeatable"`
}

// unfinishedCalls are the calls of the stored conversation's last model
// step that have no result, each marked by what its tool declares (the
// session's tools, found by name).
func unfinishedCalls(msgs []message.Message, tools tool.Lookup) []unfinishedCall {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == message.Assistant {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	done := map[string]bool{}
	for _, m := range msgs[last+1:] {
		for _, b := range m.Content {
			if b.Type == message.ToolResult {
				done[b.ToolUseID] = true
			}
		}
	}
	var out []unfinishedCall
	for _, u := range msgs[last].ToolUses() {
		if done[u.ID] {
			continue
		}
		c := unfinishedCall{ID: u.ID, Name: u.Name}
		if t, ok := tools.Find(u.Name); ok {
			c.Repeatable = tool.IsReadOnly(t) || tool.IsContained(t)
		}
		out = append(out, c)
	}
	return out
}

// unfinishedNote is what the turn_moved status says of them.
func unfinishedNote(calls []unfinishedCall) string {
	var risky []string
	for _, c := range calls {
		if !c.Repeatable {
			risky = append(risky, c.Name)
		}
	}
	switch {
	case len(calls) == 0:
		return ""
	case len(risky) == 0:
		return fmt.Sprintf("; %d tool call(s) in flight did not finish and are safe to repeat", len(calls))
	default:
		return fmt.Sprintf("; %d tool call(s) in flight did not finish, and these may have taken effect already (not safe to repeat blindly): %s",
			len(calls), strings.Join(risky, ", "))
	}
}
