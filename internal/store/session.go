package store

import (
	"time"

	"github.com/tandem-agent/tandem/internal/message"
)

// Session is one conversation and its running totals.
type Session struct {
	ID       string
	Cwd      string
	Title    string
	Model    string
	Runtime  string
	Mode     string
	ParentID string // empty for top-level sessions
	// ParentToolUseID is the parent's tool call (Agent/Task) that started
	// this sub-agent session: where its steps belong in the parent's
	// history. Empty for top-level sessions and children stored before
	// the link was kept.
	ParentToolUseID string

	CreatedAt time.Time
	UpdatedAt time.Time

	// Usage is the sum of the messages' usage.
	Usage message.Usage
	// CostUSD is the sum of the messages' costs; nil when unknown, which is
	// the case once any assistant message reported usage without a cost
	// (a model without prices): a partial sum would understate the spend.
	CostUSD      *float64
	MessageCount int
	// LastSeq is the seq of the last event emitted for the session, so that
	// the next turn's emitter continues from it and SSE clients can resume.
	LastSeq int64
	// Meta holds runtime-specific values (see SessionMeta).
	Meta map[string]string
}

// SessionUpdate names the fields UpdateSession changes; nil fields are kept.
type SessionUpdate struct {
	Title   *string
	Model   *string
	Runtime *string
	Mode    *string
	LastSeq *int64
}

// ListOptions filter and page ListSessions.
type ListOptions struct {
	Cwd    string // only sessions started in this folder; empty: all
	Limit  int    // 0: no limit
	Offset int
}

// SessionIDPrefix starts every generated session id.
const SessionIDPrefix = "ses_"

// MinPrefix is the shortest id prefix GetSession resolves, as git does.
const MinPrefix = 6

// SubagentRun is a stored sub-agent: its session (ParentToolUseID names
// the call that started it), its conversation and its own sub-agents.
type SubagentRun struct {
	Session   Session
	Messages  []message.Message
	Subagents []SubagentRun
}

// Holder identifies a live runner: one session manager in one process.
type Holder struct {
	ID   string
	PID  int
	Host string
}
