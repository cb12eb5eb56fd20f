package tandem

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/structured"
)

// RunOptions tune one turn.
type RunOptions struct {
	// OnEvent receives this turn's events, after SessionOptions.OnEvent.
	OnEvent func(Event)
	// MaxTurns stops the turn after this many model steps (0: the
	// config's, else no limit); the result's subtype is error_max_turns.
	MaxTurns int
	// MaxBudgetUSD stops the turn before a model call once it has spent
	// this many US dollars, sub-agents included (0: no limit); the
	// result's subtype is error_max_budget_usd. A model without a known
	// price cannot run under a budget.
	MaxBudgetUSD float64
	// AppendSystemPrompt is added to the system prompt; SystemPrompt
	// replaces it.
	AppendSystemPrompt, SystemPrompt string
	// JSONSchema makes the final answer a JSON value conforming to this
	// schema (one repair attempt); Result.StructuredOutput holds it.
	JSONSchema json.RawMessage
	// FallbackModels are tried in order when the model stays overloaded
	// or failing after retries (a retry event names the one that
	// answered); nil: the config's fallback_models.
	FallbackModels []string
}

// ErrBusy is matched (errors.Is) by the error of a turn that could not
// start because another process is running the session.
var ErrBusy = session.ErrBusy

// Result is how a turn ended: the result event, in short.
type Result struct {
	SessionID string
	// Subtype is SubtypeSuccess, or says how the turn failed
	// (SubtypeMaxTurns, SubtypeInterrupted, SubtypeProviderError, ...).
	Subtype string
	// Text is the final answer.
	Text    string
	IsError bool
	// Error says what went wrong when IsError.
	Error             string
	Usage             Usage
	CostUSD           *float64 // nil: unknown (a model without prices)
	Duration          time.Duration
	NumTurns          int // model steps
	PermissionDenials []Denial
	StructuredOutput  json.RawMessage
}

// Run runs one turn: the prompt, the model's steps and tool calls, until
// the model answers. The turn is stored as it goes; cancelling ctx
// interrupts it (what finished stays stored; the result's subtype is
// interrupted). A turn that ran returns its Result even when it failed
// (IsError and Subtype say how); the error is for a turn that could not
// run: a closed session, bad options, a session another process is
// running (errors.Is ErrBusy). A prompt "/name args" runs a custom command
// or skill, as in the CLI. opts may be nil.
func (s *Session) Run(ctx context.Context, prompt string, opts *RunOptions) (*Result, error) {
	if opts == nil {
		opts = &RunOptions{}
	}
	for _, m := range opts.FallbackModels {
		if err := s.engine.app.CheckModel(m, s.Dir()); err != nil {
			return nil, fmt.Errorf("RunOptions.FallbackModels: %s: %w", m, err)
		}
	}
	if len(opts.JSONSchema) > 0 {
		if _, err := structured.Compile(opts.JSONSchema); err != nil {
			return nil, fmt.Errorf("RunOptions.JSONSchema: %w", err)
		}
	}
	s.runMu.Lock()
	defer s.runMu.Unlock()
	s.sink.setTurn(opts.OnEvent)
	defer s.sink.setTurn(nil)
	res, err := s.live.Run(ctx, prompt, session.TurnOptions{MaxTurns: opts.MaxTurns, MaxBudgetUSD: opts.MaxBudgetUSD, AppendSystemPrompt: opts.AppendSystemPrompt,
		SystemPrompt: opts.SystemPrompt, DisallowedTools: s.engine.opts.DisallowedTools, JSONSchema: opts.JSONSchema, FallbackModels: opts.FallbackModels})
	if err != nil {
		return nil, fmt.Errorf("run turn of session %s: %w", s.id, err)
	}
	return publicResult(res), nil
}

func publicResult(e event.Event) *Result {
	r := &Result{SessionID: e.SessionID, Subtype: e.Subtype, Text: e.Result, IsError: e.IsError, Error: e.Error,
		CostUSD: e.CostUSD, Duration: time.Duration(e.DurationMS) * time.Millisecond, NumTurns: e.NumTurns,
		StructuredOutput: e.StructuredOutput}
	if e.Usage != nil {
		r.Usage = Usage(*e.Usage)
	}
	for _, d := range e.PermissionDenials {
		r.PermissionDenials = append(r.PermissionDenials, Denial(d))
	}
	return r
}

// eventSink hands events to the session's callback and the running
// turn's.
type eventSink struct {
	session func(Event)
	mu      sync.Mutex
	turn    func(Event)
}

func (k *eventSink) setTurn(f func(Event)) {
	k.mu.Lock()
	k.turn = f
	k.mu.Unlock()
}

func (k *eventSink) Emit(e event.Event) {
	k.mu.Lock()
	turn := k.turn
	k.mu.Unlock()
	if k.session == nil && turn == nil {
		return
	}
	pe := publicEvent(e)
	if k.session != nil {
		k.session(pe)
	}
	if turn != nil {
		turn(pe)
	}
}
