package compact

import (
	"github.com/tandem-agent/tandem/internal/message"
)

// Effective is the conversation a runtime sends, built from the stored one:
// everything up to the last compaction boundary is replaced by its summary,
// followed by the messages it kept verbatim and everything after it. With
// no boundary it is the stored conversation. Boundaries are positions in
// the stored list, so truncating the list (rewind) also drops them.
func Effective(stored []message.Message) []message.Message {
	b := LastBoundary(stored)
	if b < 0 {
		return stored
	}
	out := []message.Message{stored[b]}
	if keep := stored[b].Compaction.KeepFrom; keep != "" {
		for i := 0; i < b; i++ {
			if stored[i].ID != keep {
				continue
			}
			for _, m := range stored[i:b] {
				if m.Kind == "" {
					out = append(out, m)
				}
			}
			break
		}
	}
	for _, m := range stored[b+1:] {
		if m.Kind == "" {
			out = append(out, m)
		}
	}
	return out
}

// LastBoundary is the index of the last compaction boundary, -1 if none.
func LastBoundary(stored []message.Message) int {
	for i := len(stored) - 1; i >= 0; i-- {
		if stored[i].Kind == message.KindCompaction && stored[i].Compaction != nil {
			return i
		}
	}
	return -1
}

// Cut chooses where a summary ends and the verbatim tail begins: the
// earliest index whose tail fits in keep tokens and starts cleanly (an
// assistant message, or a user message that is not tool results, so no
// tool_result loses its tool_use). When not even the last step fits in
// keep, the latest clean start whose tail fits in maxTail is used, so the
// model does not lose the result it has not seen yet. The cut is at least
// 1 so something is summarised; len(msgs) means the summary replaces
// everything.
func Cut(msgs []message.Message, keep, maxTail int64) int {
	cut, fallback := len(msgs), len(msgs)
	var tail int64
	for i := len(msgs) - 1; i >= 1; i-- {
		tail += MessageTokens(msgs[i])
		if tail > max(keep, maxTail) {
			break
		}
		if !cleanStart(msgs[i]) {
			continue
		}
		if tail <= keep {
			cut = i
		} else if fallback == len(msgs) {
			fallback = i
		}
	}
	if cut == len(msgs) {
		return fallback
	}
	return cut
}

func cleanStart(m message.Message) bool {
	if m.Kind != "" {
		return false
	}
	if m.Role == message.Assistant {
		return true
	}
	for _, b := range m.Content {
		if b.Type == message.ToolResult {
			return false
		}
	}
	return true
}
