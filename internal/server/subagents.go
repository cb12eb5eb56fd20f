package server

import (
	"context"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// subagents returns the stored sub-agents started by tool calls in msgs
// (see store.SubagentRuns) as the API shows them.
func (s *Server) subagents(ctx context.Context, parentID string, msgs []message.Message) ([]sessionDetail, error) {
	runs, err := s.store.SubagentRuns(ctx, parentID, msgs)
	if err != nil {
		return nil, err
	}
	return subagentsJSON(runs), nil
}

func subagentsJSON(runs []store.SubagentRun) []sessionDetail {
	var out []sessionDetail
	for _, r := range runs {
		msgs := r.Messages
		if msgs == nil {
			msgs = []message.Message{}
		}
		out = append(out, sessionDetail{sessionJSON: toSessionJSON(r.Session), Messages: msgs, Subagents: subagentsJSON(r.Subagents)})
	}
	return out
}
