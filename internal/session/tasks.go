package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

// Background tasks (docs/tools.md, "Background tasks"): the shells and
// sub-agents a session runs in the background live in its tool state;
// a front end lists and stops them through the Live.

// Tasks lists the session's background tasks, running and ended, in the
// order they started.
func (l *Live) Tasks() []event.Task { return tool.Tasks(l.env) }

// StopTask stops a running background task and returns it as it ended.
// The id is checked first (a bad one names the form); an id the session
// never had wraps tool.ErrUnknownTask, one that already ended
// tool.ErrTaskEnded.
func (l *Live) StopTask(id string) (event.Task, error) {
	if err := tool.ValidTaskID(id); err != nil {
		return event.Task{}, err
	}
	if _, err := tool.StopTask(l.env, id); err != nil {
		return event.Task{}, err
	}
	for _, t := range l.Tasks() {
		if t.ID == id {
			return t, nil
		}
	}
	return event.Task{}, fmt.Errorf("%w %q", tool.ErrUnknownTask, id)
}

// metaPendingNotices keeps, with the stored session, what background work
// had to tell the model when the session closed before another message
// took it (a task stopped because the session ended): the next process
// to open the session hands it over with the next prompt, so the end of
// a background task is never lost with the process.
const metaPendingNotices = "pending_notices"

// keepNotices stores the notices still queued; called by Close once the
// tool state (and with it every background task) has closed.
func (l *Live) keepNotices(ctx context.Context) {
	ns := tool.TakeNotices(l.env)
	if len(ns) == 0 {
		return
	}
	data, err := json.Marshal(ns)
	if err != nil {
		return
	}
	_ = l.mgr.store.SetMeta(ctx, l.record.ID, metaPendingNotices, string(data))
}

// restoreNotices queues the notices an earlier process kept and clears
// them from the store (Close keeps them again if no turn takes them).
func (l *Live) restoreNotices(ctx context.Context) {
	raw, err := l.mgr.store.Meta(ctx, l.record.ID, metaPendingNotices)
	if err != nil || raw == "" {
		return
	}
	var ns []string
	if json.Unmarshal([]byte(raw), &ns) == nil {
		for _, n := range ns {
			tool.Notify(l.env, n)
		}
	}
	_ = l.mgr.store.SetMeta(ctx, l.record.ID, metaPendingNotices, "")
}
