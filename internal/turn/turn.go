// Package turn is the contract between a session and the runtime that
// carries out one user turn: the native agent loop (internal/agent) or the
// Claude Code CLI (internal/claudecode). Both get the same inputs and
// dependencies and report through the same event emitter, so every
// interface works the same under either.
package turn

import (
	"context"
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permit"
	"github.com/tandem-agent/tandem/internal/tool"
)

// Input is one user turn and the settings it runs under.
type Input struct {
	SessionID string
	Prompt    string
	Images    []message.Block
	Cwd       string
	Roots     []string // Cwd plus --add-dir folders
	Model     string   // "provider/model"
	// FallbackModels are tried in order when Model keeps failing after
	// retries (overloaded, server errors, model not found) or cannot be
	// used at all (its provider disabled or without a key).
	FallbackModels []string
	Mode           permit.Mode
	MaxTurns       int // 0: no limit
	// MaxBudgetUSD stops the turn before a model call once the turn has
	// spent this much, sub-agents included (0: no limit). Budget, when
	// set, is a budget to share instead (a sub-agent's, its parent's).
	MaxBudgetUSD float64
	Budget       *Budget
	// Ledger, when set (and Budget is not), backs the turn's budget with a
	// day's spending shared with other turns (tandem serve's daily budget
	// per user): each model call is recorded in it as it is made, and the
	// turn stops before a call once the day's total reaches its limit.
	// Runtimes that cannot check before each call (the claude-code CLI)
	// ignore it; their caller bounds MaxBudgetUSD instead.
	Ledger             Ledger
	AppendSystemPrompt string
	SystemPrompt       string // replaces the default system prompt when set
	AllowedTools       []string
	DisallowedTools    []string
	Verbose            bool
	// Effort overrides the model's configured effort for this turn (a
	// skill's or sub-agent's `effort`); empty keeps it.
	Effort string
	// ThinkingBudget overrides the model's configured thinking budget for
	// this turn (Claude Code's set_max_thinking_tokens): 0 turns thinking
	// off; nil keeps the configured one.
	ThinkingBudget *int64
	// JSONSchema, when set, is the JSON Schema the final answer must
	// conform to (--json-schema); the result carries the parsed value.
	JSONSchema json.RawMessage
	// Resume continues a turn another process began and did not finish
	// (a replica killed mid-turn, docs/api.md Replicas): its prompt is
	// stored already, so the turn goes on from the stored conversation,
	// redoing the step in flight, instead of adding Prompt again.
	Resume bool
}

// Recorder persists what a turn produces, step by step, so that a crash or
// kill loses at most the step in flight.
type Recorder interface {
	// History is the stored conversation, oldest first.
	History(ctx context.Context) ([]message.Message, error)
	// Append stores one message (and adds its usage and cost to the session).
	Append(ctx context.Context, m message.Message) error
	// Meta and SetMeta keep small runtime-specific values with the session
	// (the Claude Code session id, the todo list).
	Meta(ctx context.Context, key string) (string, error)
	SetMeta(ctx context.Context, key, value string) error
}

// ChildRecorder is implemented by recorders that can store a sub-agent's
// conversation as a child session of theirs (the claude-code runtime's
// sub-agents; the native runtime's are stored by internal/subagent).
type ChildRecorder interface {
	// Child creates a child session for the sub-agent that the parent's
	// tool call parentToolUseID started, and returns its id and recorder.
	// The child keeps that link, so stored history can put the child's
	// steps under the call as the live events (parent_tool_use_id) did.
	Child(ctx context.Context, parentToolUseID, title, model string) (id string, rec Recorder, err error)
}

// Deps are what a runtime works with. Nothing here is global: a program may
// run many sessions, each with its own.
type Deps struct {
	Events   *event.Emitter
	Recorder Recorder
	Checker  permit.Checker
	Tools    *tool.Registry
	Env      *tool.Env
}

// Runtime carries out turns.
type Runtime interface {
	Name() string
	// RunTurn runs one turn to its end and returns the result event it
	// emitted. The error return is for failures that prevented a result
	// event; everything else (provider errors, max turns, interrupts) is
	// reported in the result.
	RunTurn(ctx context.Context, in Input, d Deps) (event.Event, error)
}
