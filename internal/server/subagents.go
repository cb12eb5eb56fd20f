package server

import (
	"context"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
)

// subagents returns the stored sub-agents started by tool calls in msgs
// (see session.Manager.Subagents) as the API shows them.
func (s *Server) subagents(ctx context.Context, parentID string, msgs []message.Message) ([]sessionDetail, error) {
	runs, err := s.mgr.Subagents(ctx, parentID, msgs)
	if err != nil {
		return nil, err
	}
	return subagentsJSON(runs), nil
}

func subagentsJSON(runs []session.SubagentRun) []sessionDetail {
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
