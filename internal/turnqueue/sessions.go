package turnqueue

import (
	"strings"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// SessionOf is the session a turn's workflow id (WorkflowPrefix, then a
// lower-case ULID) belongs to; "" for another id.
func SessionOf(workflowID string) string {
	const ulidLen = 26
	rest, ok := strings.CutPrefix(workflowID, "turn-")
	if !ok || len(rest) < ulidLen+2 || rest[len(rest)-ulidLen-1] != '-' {
		return ""
	}
	return rest[:len(rest)-ulidLen-1]
}

// sessionsByExecutor groups the sessions of pending turns by the replica
// running them, leaving out self's and those of no executor.
func sessionsByExecutor(ws []dbos.WorkflowStatus, self string) map[string][]string {
	out := map[string][]string{}
	for _, w := range ws {
		if w.ExecutorID == "" || w.ExecutorID == self {
			continue
		}
		if id := SessionOf(w.ID); id != "" {
			out[w.ExecutorID] = append(out[w.ExecutorID], id)
		} else if _, ok := out[w.ExecutorID]; !ok {
			out[w.ExecutorID] = nil
		}
	}
	return out
}
