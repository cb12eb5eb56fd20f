package claudecode

import (
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
)

// TypeSequence reduces events to their types in order, with each run of
// consecutive text or thinking deltas collapsed to one entry (runtimes
// chunk text differently) and tool_output left out: it is progress that
// the tool_result repeats, and Claude Code's stream-json has no live tool
// output to map it from (its tool_progress carries only elapsed time).
// context events are left out too: the CLI reports no window measurement.
// Running the same scripted task under the native runtime and under
// claude-code should give equal sequences.
func TypeSequence(evs []event.Event) []event.Type {
	var out []event.Type
	for _, e := range evs {
		if e.Type == event.ToolOutput || e.Type == event.Context {
			continue
		}
		if (e.Type == event.Text || e.Type == event.Thinking) && len(out) > 0 && out[len(out)-1] == e.Type {
			continue
		}
		out = append(out, e.Type)
	}
	return out
}

// CompareSequences reports whether two runs emitted the same type
// sequence, and if not, where they first differ.
func CompareSequences(a, b []event.Event) (bool, string) {
	sa, sb := TypeSequence(a), TypeSequence(b)
	n := min(len(sa), len(sb))
	for i := 0; i < n; i++ {
		if sa[i] != sb[i] {
			return false, fmt.Sprintf("first difference at %d: %s vs %s\n a: %s\n b: %s", i, sa[i], sb[i], join(sa), join(sb))
		}
	}
	if len(sa) != len(sb) {
		return false, fmt.Sprintf("lengths differ (%d vs %d)\n a: %s\n b: %s", len(sa), len(sb), join(sa), join(sb))
	}
	return true, ""
}

func join(ts []event.Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, " ")
}
