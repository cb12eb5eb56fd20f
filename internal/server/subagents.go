package server

import (
	"context"

	"github.com/tandem-agent/tandem/internal/message"
)

// maxSubagentDepth bounds how deep GET /api/sessions/{id} nests sub-agents;
// far above any configured subagents.max_depth, it only guards against a
// store edited into a loop.
const maxSubagentDepth = 16

// subagents returns the stored sub-agent sessions started by tool calls
// in msgs, each with its messages and its own sub-agents. A child whose
// call is not among msgs is left out: it belongs to the running turn (its
// steps come with the replayed events) or to a part of the conversation
// rewound away.
func (s *Server) subagents(ctx context.Context, parentID string, msgs []message.Message, depth int) ([]sessionDetail, error) {
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
	kids, err := s.store.Children(ctx, parentID)
	if err != nil {
		return nil, err
	}
	var out []sessionDetail
	for _, k := range kids {
		if !calls[k.ParentToolUseID] {
			continue
		}
		km, err := s.store.Messages(ctx, k.ID)
		if err != nil {
			return nil, err
		}
		if km == nil {
			km = []message.Message{}
		}
		grand, err := s.subagents(ctx, k.ID, km, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, sessionDetail{sessionJSON: toSessionJSON(k), Messages: km, Subagents: grand})
	}
	return out, nil
}
