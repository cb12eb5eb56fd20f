package agent

import (
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/tool"
)

// noticeBlocks are the session's queued notices (tool.Notify: a
// background shell ended) as one text block for the next recorded user
// message, so the model learns of background work's end with the next
// prompt or tool results.
func noticeBlocks(env *tool.Env) []message.Block {
	ns := tool.TakeNotices(env)
	if len(ns) == 0 {
		return nil
	}
	return []message.Block{message.TextBlock("<system-reminder>\n" + strings.Join(ns, "\n") + "\n</system-reminder>")}
}
