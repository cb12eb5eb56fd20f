package store

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/message"
)

// Children returns the sub-agent sessions started under parentID, oldest
// first (the order they were started in).
func (s *Store) Children(ctx context.Context, parentID string) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE parent_id = ? ORDER BY created_at, id`, parentID)
	if err != nil {
		return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
	}
	return out, nil
}

// SubagentRun is a stored sub-agent: its session (ParentToolUseID names
// the call that started it), its conversation and its own sub-agents.
type SubagentRun struct {
	Session   Session
	Messages  []message.Message
	Subagents []SubagentRun
}

// maxSubagentDepth bounds how deep SubagentRuns follows sub-agents; far
// above any configured nesting limit, it only guards a store edited into
// a loop.
const maxSubagentDepth = 16

// SubagentRuns returns the sub-agents of session parentID that tool calls
// in msgs (some or all of its messages) started, oldest first, each with
// its messages and sub-agents: what a reader of msgs needs to show each
// sub-agent's steps under its call. A child whose call is not in msgs is
// left out (it belongs to messages not given: a turn still running, or
// rewound away); so are children stored before the link was kept.
func (s *Store) SubagentRuns(ctx context.Context, parentID string, msgs []message.Message) ([]SubagentRun, error) {
	return CollectSubagentRuns(ctx, s, parentID, msgs)
}

// SubagentReader is what CollectSubagentRuns reads: any backend.
type SubagentReader interface {
	Children(ctx context.Context, parentID string) ([]Session, error)
	Messages(ctx context.Context, sessionID string) ([]message.Message, error)
}

// CollectSubagentRuns is SubagentRuns over any backend's reads.
func CollectSubagentRuns(ctx context.Context, r SubagentReader, parentID string, msgs []message.Message) ([]SubagentRun, error) {
	return subagentRuns(ctx, r, parentID, msgs, 0)
}

func subagentRuns(ctx context.Context, r SubagentReader, parentID string, msgs []message.Message, depth int) ([]SubagentRun, error) {
	if depth >= maxSubagentDepth {
		return nil, nil
	}
	calls := map[string]bool{}
	for _, m := range msgs {
		if m.Role != message.Assistant {
			continue
		}
		for _, b := range m.Content {
			if b.Type == message.ToolUse {
				calls[b.ID] = true
			}
		}
	}
	if len(calls) == 0 {
		return nil, nil
	}
	kids, err := r.Children(ctx, parentID)
	if err != nil {
		return nil, err
	}
	var out []SubagentRun
	for _, k := range kids {
		if !calls[k.ParentToolUseID] {
			continue
		}
		km, err := r.Messages(ctx, k.ID)
		if err != nil {
			return nil, fmt.Errorf("sub-agent %s: %w", k.ID, err)
		}
		grand, err := subagentRuns(ctx, r, k.ID, km, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, SubagentRun{Session: k, Messages: km, Subagents: grand})
	}
	return out, nil
}
