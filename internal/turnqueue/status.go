package turnqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// Turn is a turn not finished yet, as every replica sees it in the
// system database (whichever replica runs it).
type Turn struct {
	ID      string
	Session string
	Prompt  string
	User    string
	// Running: a replica dequeued it (it runs, or its replica stopped and
	// another is about to resume it); false: it waits in its queue.
	Running bool
	Replica string // the executor that dequeued it
	Created time.Time
}

// Unfinished returns the turns queued or running of sessions (of every
// session when none is given), oldest first: one query of the system
// database, cheap enough for a session list.
func (e *Engine) Unfinished(ctx context.Context, sessions ...string) ([]Turn, error) {
	opts := []dbos.ListWorkflowsOption{dbos.WithFilterName(workflowName),
		dbos.WithFilterStatus(dbos.WorkflowStatusPending, dbos.WorkflowStatusEnqueued),
		dbos.WithFilterLoadInput(true), dbos.WithFilterLoadOutput(false)}
	if len(sessions) > 0 {
		ps := make([]string, len(sessions))
		for i, s := range sessions {
			ps[i] = WorkflowPrefix(s)
		}
		opts = append(opts, dbos.WithFilterWorkflowIDPrefix(ps...))
	}
	ws, err := dbos.ListWorkflows(e.dc, opts...)
	if err != nil {
		return nil, fmt.Errorf("list the unfinished turns: %w", err)
	}
	out := make([]Turn, 0, len(ws))
	for _, w := range ws {
		var job Job
		if err := recode(w.Input, &job); err != nil {
			e.log.Warn("a queued turn's input does not decode", "turn", w.ID, "err", err)
		}
		out = append(out, Turn{ID: w.ID, Session: job.Session, Prompt: job.Prompt, User: job.User,
			Running: w.Status == dbos.WorkflowStatusPending, Replica: w.ExecutorID, Created: w.CreatedAt})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// Begun returns what the turn recorded when it began (its first run's
// start, whichever replica resumed it since); false before it began.
func (e *Engine) Begun(ctx context.Context, id string) (Start, bool, error) {
	steps, err := dbos.GetWorkflowSteps(e.dc, id, dbos.WithStepsLoadOutput(true))
	if err != nil {
		return Start{}, false, fmt.Errorf("read the start of turn %s: %w", id, err)
	}
	for _, s := range steps {
		if s.StepName != "begin" || s.Output == nil {
			continue
		}
		var st Start
		if err := recode(s.Output, &st); err != nil {
			return Start{}, false, fmt.Errorf("decode the start of turn %s: %w", id, err)
		}
		return st, true, nil
	}
	return Start{}, false, nil
}

// recode turns a value DBOS decoded for listing (a map, or the JSON
// text itself) into dst.
func recode(v any, dst any) error {
	var data []byte
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		data = []byte(x)
	case []byte:
		data = x
	default:
		var err error
		if data, err = json.Marshal(x); err != nil {
			return err
		}
	}
	if err := json.Unmarshal(data, dst); err != nil {
		// A string holding JSON text that is itself JSON-encoded.
		var s string
		if json.Unmarshal(data, &s) == nil {
			return json.Unmarshal([]byte(s), dst)
		}
		return err
	}
	return nil
}
