package subagent

import (
	"context"

	"github.com/tandem-agent/tandem/internal/recorder"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/turn"
)

// StoreChildren stores sub-agent sessions under their parent in the store.
type StoreChildren struct{ Store recorder.Store }

// NewChild implements Children.
func (c StoreChildren) NewChild(ctx context.Context, parentID, parentToolUseID, cwd, model, title string, lastSeq func() int64) (string, turn.Recorder, error) {
	s, err := c.Store.CreateSession(ctx, store.Session{Cwd: cwd, Model: model, Runtime: string(runtimes.Native),
		ParentID: parentID, ParentToolUseID: parentToolUseID, Title: title})
	if err != nil {
		return "", nil, err
	}
	return s.ID, recorder.ForSession(c.Store, s.ID, lastSeq), nil
}
