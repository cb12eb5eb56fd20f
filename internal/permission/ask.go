package permission

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
)

// Reply decisions, spelled as the permission_reply event spells them.
const (
	AllowOnce   = "allow_once"
	AllowAlways = "allow_always"
	DenyCall    = "deny"
	// Cancel answers only an MCP server's question (kind Elicitation):
	// the user dismissed it without choosing (accept is allow_once, with
	// the form's values as updated_input; decline is deny).
	Cancel = "cancel"
)

// Scope says where an "allow always" rule is kept.
type Scope string

const (
	ScopeSession Scope = "session" // in memory, for this session
	ScopeProject Scope = "project" // the project's config
	ScopeUser    Scope = "user"    // the user's config
)

// Question is one call waiting for the user.
type Question struct {
	RequestID string          `json:"request_id"`
	SessionID string          `json:"session_id,omitempty"`
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	// Summary is one human line: "Run `rm -rf build`", "Edit src/main.go".
	Summary string `json:"summary"`
	// Reason says why the call needs approval.
	Reason string `json:"reason,omitempty"`
	// Suggestion is what "allow always" would save (Rules in Claude Code
	// syntax, comma separated); empty when "allow always" is not offered.
	Suggestion string `json:"suggestion,omitempty"`
	Rules      []Rule `json:"rules,omitempty"`
	// Diff previews an edit.
	Diff string `json:"diff,omitempty"`
	// Kind is set when the call is itself a question to the user (plan
	// approval, a multiple-choice question; interact.go): a front end
	// renders Input by it, and answers with Answer.Mode or Answer.Answers.
	Kind Interaction `json:"kind,omitempty"`
}

// AlwaysOffered reports whether "allow always" may be answered.
func (q Question) AlwaysOffered() bool { return len(q.Rules) > 0 }

// Answer is the user's reply.
type Answer struct {
	Decision string `json:"decision"`          // allow_once | allow_always | deny
	Scope    Scope  `json:"scope,omitempty"`   // for allow_always; session when empty
	Message  string `json:"message,omitempty"` // for deny: passed to the model
	// By names the client that answered ("terminal", "http:<addr>", ...).
	By string `json:"by,omitempty"`
	// UpdatedInput, with an allow, replaces the call's input (an SDK host's
	// canUseTool may rewrite it, as Claude Code's protocol allows).
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"`
	// Mode, with allow_once of a plan approval, is the mode to work in
	// (normal when empty; never explore).
	Mode Mode `json:"mode,omitempty"`
	// Answers, with allow_once of a user question, maps each question's
	// text to the chosen label(s) (comma separated) or the free text
	// typed instead, as Claude Code's AskUserQuestion answers do.
	Answers map[string]string `json:"answers,omitempty"`
}

// Validate checks the answer against the question.
func (a Answer) Validate(q Question) error {
	if q.Kind != "" {
		return a.validateInteraction(q)
	}
	switch a.Decision {
	case AllowOnce, DenyCall:
	case AllowAlways:
		if !q.AlwaysOffered() {
			return fmt.Errorf("allow_always is not offered for %s (interpreters, wrappers and protected paths are approved one call at a time): answer allow_once or deny", q.ToolName)
		}
		switch a.Scope {
		case "", ScopeSession, ScopeProject, ScopeUser:
		default:
			return fmt.Errorf("scope %q is not one of session, project, user", a.Scope)
		}
	default:
		return fmt.Errorf("decision %q is not one of allow_once, allow_always, deny", a.Decision)
	}
	return nil
}

// Asker answers questions: a terminal prompt, a server forwarding to its
// clients, a test.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, q Question) (Answer, error)

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

var (
	// ErrAlreadyAnswered is returned to every client but the first that
	// answers a request.
	ErrAlreadyAnswered = errors.New("permission request already answered")
	// ErrUnknownRequest is returned for a request id that is not pending.
	ErrUnknownRequest = errors.New("no pending permission request with that id")
)

// Broker is the Asker the engine uses when several clients may answer: it
// registers each question by request id, emits permission_request, lets
// any client Reply, takes the first answer and emits permission_reply
// naming who won. Local askers (a terminal) are asked concurrently and
// their answers go through Reply like any other client's.
type Broker struct {
	emit  func(event.Event)
	local []Asker

	mu      sync.Mutex
	pending map[string]*pendingQ
	nextID  uint64
}

type pendingQ struct {
	q      Question
	answer chan Answer
	done   bool
}

// NewBroker returns a broker that emits through emit (nil: no events) and
// also asks each local asker.
func NewBroker(emit func(event.Event), local ...Asker) *Broker {
	if emit == nil {
		emit = func(event.Event) {}
	}
	return &Broker{emit: emit, local: local, pending: map[string]*pendingQ{}}
}

// Ask registers q (assigning a RequestID when empty), emits the request and
// blocks for the first valid answer or the end of ctx.
func (b *Broker) Ask(ctx context.Context, q Question) (Answer, error) {
	b.mu.Lock()
	if q.RequestID == "" {
		// Random, not a counter: a server answers requests of many
		// sessions (each with its own broker) by id alone.
		b.nextID++
		q.RequestID = fmt.Sprintf("perm_%s_%d", randomHex(6), b.nextID)
	}
	p := &pendingQ{q: q, answer: make(chan Answer, 1)}
	b.pending[q.RequestID] = p
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.pending, q.RequestID)
		b.mu.Unlock()
	}()

	b.emit(event.Event{Type: event.PermissionRequest, SessionID: q.SessionID, RequestID: q.RequestID,
		ToolName: q.ToolName, ToolUseID: q.ToolUseID, Input: q.Input, Summary: q.Summary,
		Suggestion: q.Suggestion, Diff: q.Diff, Message: q.Reason, Meta: kindMeta(q.Kind)})

	localCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i, a := range b.local {
		go func() {
			ans, err := a.Ask(localCtx, q)
			if err != nil {
				return
			}
			if ans.By == "" {
				ans.By = fmt.Sprintf("local-%d", i)
			}
			_ = b.Reply(q.RequestID, ans)
		}()
	}
	select {
	case ans := <-p.answer:
		return ans, nil
	case <-ctx.Done():
		b.mu.Lock()
		p.done = true
		b.mu.Unlock()
		return Answer{}, fmt.Errorf("wait for permission %s: %w", q.RequestID, ctx.Err())
	}
}

// Reply answers a pending request. The first valid reply wins; later ones
// get ErrAlreadyAnswered.
func (b *Broker) Reply(requestID string, a Answer) error {
	b.mu.Lock()
	p, ok := b.pending[requestID]
	if !ok {
		b.mu.Unlock()
		return fmt.Errorf("reply to %s: %w", requestID, ErrUnknownRequest)
	}
	if p.done {
		b.mu.Unlock()
		return fmt.Errorf("reply to %s: %w", requestID, ErrAlreadyAnswered)
	}
	if err := a.Validate(p.q); err != nil {
		b.mu.Unlock()
		return fmt.Errorf("reply to %s: %w", requestID, err)
	}
	if a.Decision == AllowAlways && a.Scope == "" {
		a.Scope = ScopeSession
	}
	p.done = true
	b.mu.Unlock()

	meta := map[string]any{}
	if a.By != "" {
		meta["by"] = a.By
	}
	if a.Scope != "" {
		meta["scope"] = string(a.Scope)
	}
	// The reply is emitted before the asker is woken: once woken, the
	// turn goes on (the tool runs, the turn may end), and every front end
	// must see the answer before what it let happen. p.answer holds one,
	// so the send never blocks, even if the asker gave up meanwhile.
	b.emit(event.Event{Type: event.PermissionReply, SessionID: p.q.SessionID, RequestID: requestID,
		ToolName: p.q.ToolName, ToolUseID: p.q.ToolUseID, Decision: a.Decision, Message: a.Message, Meta: meta})
	p.answer <- a
	return nil
}

// Pending lists the questions waiting for an answer (for a server's
// GET /permission and for clients that attach late).
func (b *Broker) Pending() []Question {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Question
	for _, p := range b.pending {
		if !p.done {
			out = append(out, p.q)
		}
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "x"
	}
	return hex.EncodeToString(b)
}
