package backend

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// childReader is what the walk over sub-agent runs reads.
type childReader interface {
	Children(ctx context.Context, parentID string) ([]store.Session, error)
	Messages(ctx context.Context, sessionID string) ([]message.Message, error)
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
func SubagentRuns(ctx context.Context, st childReader, parentID string, msgs []message.Message) ([]store.SubagentRun, error) {
	return subagentRuns(ctx, st, parentID, msgs, 0)
}

func subagentRuns(ctx context.Context, st childReader, parentID string, msgs []message.Message, depth int) ([]store.SubagentRun, error) {
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
	kids, err := st.Children(ctx, parentID)
	if err != nil {
		return nil, err
	}
	var out []store.SubagentRun
	for _, k := range kids {
		if !calls[k.ParentToolUseID] {
			continue
		}
		km, err := st.Messages(ctx, k.ID)
		if err != nil {
			return nil, fmt.Errorf("sub-agent %s: %w", k.ID, err)
		}
		grand, err := subagentRuns(ctx, st, k.ID, km, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, store.SubagentRun{Session: k, Messages: km, Subagents: grand})
	}
	return out, nil
}
