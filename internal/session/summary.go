package session

import (
	"context"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// Summary is what front ends show of a session (lists, details, exports,
// resume pickers): the session layer's view, so that no front end reads
// storage rows or calls the store (docs/ARCHITECTURE.md, "Sessions").
type Summary struct {
	ID      string
	Cwd     string
	Title   string
	Model   string
	Runtime string
	Mode    string
	// ParentID names the session that started this one as a sub-agent;
	// empty for top-level sessions.
	ParentID string
	// ParentToolUseID is the parent's tool call that started it.
	ParentToolUseID string

	CreatedAt time.Time
	UpdatedAt time.Time

	Usage message.Usage
	// CostUSD is nil when unknown (a model without prices took part).
	CostUSD      *float64
	MessageCount int
	// LastSeq is the seq of the last event emitted for the session.
	LastSeq int64
	// Meta holds runtime-specific values (the native runtime's context
	// measurement under "context", the Claude Code session id, ...).
	Meta map[string]string
}

// summaryOf is the one conversion from the stored record.
func summaryOf(r store.Session) Summary {
	return Summary{ID: r.ID, Cwd: r.Cwd, Title: r.Title, Model: r.Model, Runtime: r.Runtime, Mode: r.Mode,
		ParentID: r.ParentID, ParentToolUseID: r.ParentToolUseID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Usage: r.Usage, CostUSD: r.CostUSD, MessageCount: r.MessageCount, LastSeq: r.LastSeq, Meta: r.Meta}
}

func summariesOf(rs []store.Session) []Summary {
	out := make([]Summary, len(rs))
	for i, r := range rs {
		out[i] = summaryOf(r)
	}
	return out
}

// SubagentRun is a sub-agent a tool call started: its session, its
// conversation and its own sub-agents.
type SubagentRun struct {
	Session   Summary
	Messages  []message.Message
	Subagents []SubagentRun
}

func runsOf(rs []store.SubagentRun) []SubagentRun {
	if rs == nil {
		return nil
	}
	out := make([]SubagentRun, len(rs))
	for i, r := range rs {
		out[i] = SubagentRun{Session: summaryOf(r.Session), Messages: r.Messages, Subagents: runsOf(r.Subagents)}
	}
	return out
}

// ListOptions filter and page Manager.List.
type ListOptions struct {
	Cwd    string // only sessions started in this folder; empty: all
	Limit  int    // 0: no limit
	Offset int
}

// List returns stored sessions, most recently updated first.
func (m *Manager) List(ctx context.Context, opt ListOptions) ([]Summary, error) {
	rs, err := m.store.ListSessions(ctx, store.ListOptions{Cwd: opt.Cwd, Limit: opt.Limit, Offset: opt.Offset})
	if err != nil {
		return nil, err
	}
	return summariesOf(rs), nil
}

// Find returns the session id names: a full id or a unique prefix of at
// least six characters (ErrNotFound, ErrAmbiguous, ErrBadID).
func (m *Manager) Find(ctx context.Context, id string) (Summary, error) {
	r, err := m.store.GetSession(ctx, id)
	if err != nil {
		return Summary{}, err
	}
	return summaryOf(r), nil
}

// Latest returns the most recently updated top-level session started in
// cwd: what --continue resumes (ErrNotFound when there is none).
func (m *Manager) Latest(ctx context.Context, cwd string) (Summary, error) {
	r, err := m.store.LatestSession(ctx, cwd)
	if err != nil {
		return Summary{}, err
	}
	return summaryOf(r), nil
}

// Messages returns a stored session's conversation, oldest first.
func (m *Manager) Messages(ctx context.Context, id string) ([]message.Message, error) {
	return m.store.Messages(ctx, id)
}

// Children returns the sub-agent sessions started under parentID, oldest
// first.
func (m *Manager) Children(ctx context.Context, parentID string) ([]Summary, error) {
	rs, err := m.store.Children(ctx, parentID)
	if err != nil {
		return nil, err
	}
	return summariesOf(rs), nil
}

// Subagents returns the sub-agents that tool calls in msgs (the
// conversation of parentID) started, each with its own conversation.
func (m *Manager) Subagents(ctx context.Context, parentID string, msgs []message.Message) ([]SubagentRun, error) {
	rs, err := m.store.SubagentRuns(ctx, parentID, msgs)
	if err != nil {
		return nil, err
	}
	return runsOf(rs), nil
}

// Delete removes a stored session with its messages and sub-agent
// sessions (not its checkpoint snapshots: checkpoint.Service.DeleteSession
// does both).
func (m *Manager) Delete(ctx context.Context, id string) error {
	return m.store.DeleteSession(ctx, id)
}

// Fork copies session src (its folder, title, model, runtime and
// conversation) into a new session with id newID ("" generates one) and
// returns the new session.
func (m *Manager) Fork(ctx context.Context, src Summary, newID string) (Summary, error) {
	msgs, err := m.store.Messages(ctx, src.ID)
	if err != nil {
		return Summary{}, fmt.Errorf("fork session %s: %w", src.ID, err)
	}
	dst, err := m.store.CreateSession(ctx, store.Session{ID: newID, Cwd: src.Cwd, Title: src.Title, Model: src.Model, Runtime: src.Runtime})
	if err != nil {
		return Summary{}, fmt.Errorf("fork session %s: %w", src.ID, err)
	}
	for _, msg := range msgs {
		msg.ID = "" // stored ids are per session
		if _, err := m.store.AppendMessage(ctx, dst.ID, msg); err != nil {
			return Summary{}, fmt.Errorf("fork session %s: %w", src.ID, err)
		}
	}
	return summaryOf(dst), nil
}
