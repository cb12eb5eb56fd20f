package sqlite

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// Children returns the sub-agent sessions started under parentID, oldest
// first (the order they were started in).
func (s *Store) Children(ctx context.Context, parentID string) ([]store.Session, error) {
	rows, err := s.db.QueryContext(ctx, withSessionColumns(sessionChildrenSQL), parentID)
	if err != nil {
		return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
	}
	out, err := scanSessions(rows)
	if err != nil {
		return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// SubagentRuns returns the sub-agents that tool calls in msgs started
// (see backend.SubagentRuns).
func (s *Store) SubagentRuns(ctx context.Context, parentID string, msgs []message.Message) ([]store.SubagentRun, error) {
	return backend.SubagentRuns(ctx, s, parentID, msgs)
}
