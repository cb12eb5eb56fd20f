package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
)

// sessionJSON is a session as the API shows it.
type sessionJSON struct {
	ID       string `json:"id"`
	Cwd      string `json:"cwd"`
	Title    string `json:"title"`
	Model    string `json:"model"`
	Runtime  string `json:"runtime"`
	Mode     string `json:"mode"`
	ParentID string `json:"parent_id,omitempty"`
	// ParentToolUseID is, for a sub-agent's session, the parent's Agent
	// (or Skill) tool call that started it.
	ParentToolUseID string        `json:"parent_tool_use_id,omitempty"`
	CreatedAt       time.Time     `json:"created_at"`
	UpdatedAt       time.Time     `json:"updated_at"`
	Usage           message.Usage `json:"usage"`
	CostUSD         *float64      `json:"total_cost_usd"`
	MessageCount    int           `json:"message_count"`
	LastSeq         int64         `json:"last_seq"`
	Status          string        `json:"status"` // idle | running
	// RunningPrompt is the prompt of the running turn: its user_message
	// event may be gone from the ring (stream_floor), and the stored
	// messages have it only once the turn ends.
	RunningPrompt string   `json:"running_prompt,omitempty"`
	Queued        []string `json:"queued,omitempty"`
	// Context is how full the model's context window was after the last
	// turn (as the last context event said); absent before the first.
	Context *contextJSON `json:"context,omitempty"`
}

// setLive adds what only the running server knows: whether a turn runs,
// its prompt and the prompts queued after it.
func (j *sessionJSON) setLive(sn snapshot) {
	if sn.running {
		j.Status, j.RunningPrompt = "running", sn.current
	}
	j.Queued = sn.queued
}

type contextJSON struct {
	Tokens int64 `json:"tokens"`
	Window int64 `json:"window"`
}

// sessionDetail is GET /api/sessions/{id}: the session and its messages up
// to last_seq, with the sub-agents those messages started.
type sessionDetail struct {
	sessionJSON
	Messages []message.Message `json:"messages"`
	// Subagents are the child sessions started by tool calls in Messages,
	// each with its own messages and sub-agents, in the order they
	// started: a client nests each under the call its parent_tool_use_id
	// names, as the live events' parent_tool_use_id did.
	Subagents []sessionDetail `json:"subagents,omitempty"`
	// StreamFloor is set while the event ring no longer holds the
	// running turn's first events after last_seq: a client resumes after
	// it instead (after last_seq it would be told to reload again), and
	// the stream_floor - last_seq events in between are lost to it until
	// the turn ends and the stored messages have them.
	StreamFloor int64 `json:"stream_floor,omitempty"`
}

type usageJSON struct {
	SessionID    string        `json:"session_id"`
	Usage        message.Usage `json:"usage"`
	CostUSD      *float64      `json:"total_cost_usd"`
	MessageCount int           `json:"message_count"`
}

type workspaceJSON struct {
	ID        string    `json:"id"`
	Path      string    `json:"path"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

func toSessionJSON(r session.Summary) sessionJSON {
	return sessionJSON{ID: r.ID, Cwd: r.Cwd, Title: r.Title, Model: r.Model, Runtime: r.Runtime, Mode: r.Mode,
		ParentID: r.ParentID, ParentToolUseID: r.ParentToolUseID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Usage: r.Usage, CostUSD: r.CostUSD,
		MessageCount: r.MessageCount, LastSeq: r.LastSeq, Status: "idle", Context: contextOf(r)}
}

// contextOf reads the measurement the native runtime keeps in meta.
func contextOf(r session.Summary) *contextJSON {
	var c contextJSON
	if raw := r.Meta["context"]; raw == "" || json.Unmarshal([]byte(raw), &c) != nil || c.Tokens <= 0 {
		return nil
	}
	return &c
}

// storeError maps a store failure to an API error without leaking details
// that do not help the caller.
func storeError(err error, what, id string) *apiError {
	switch {
	case errors.Is(err, session.ErrNotFound):
		return errf(http.StatusNotFound, "not_found", "no %s %q", what, id)
	case errors.Is(err, session.ErrBadID):
		return errf(http.StatusBadRequest, "bad_id", "%v", err)
	case errors.Is(err, session.ErrAmbiguous):
		return errf(http.StatusBadRequest, "ambiguous_id", "%s id %q matches several; give the full id", what, id)
	}
	return errf(http.StatusInternalServerError, "store", "could not read or write the session store: %v", err)
}
