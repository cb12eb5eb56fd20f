//go:build !notelemetry

package telemetry

import (
	"context"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Runtime wraps a session's runtime: each turn is a span (in the context
// the runtime gets, so what it calls can find it) and the model calls the
// turn's recorder stores are reported. A nil s returns rt itself.
func (s *Session) Runtime(rt turn.Runtime) turn.Runtime {
	if s == nil {
		return rt
	}
	return runtime{Runtime: rt, s: s}
}

type runtime struct {
	turn.Runtime
	s *Session
}

func (r runtime) RunTurn(ctx context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	ctx = r.s.BeginTurn(ctx, in.Prompt, in.Model)
	d.Recorder = r.s.Recorder(in.SessionID, d.Recorder)
	res, err := r.Runtime.RunTurn(ctx, in, d)
	r.s.EndTurn(res, err)
	return res, err
}

// Recorder wraps the recorder of session id (the session's own or a
// sub-agent's, see Child) so each assistant message it stores is reported
// as a model call. A recorder that makes children (turn.ChildRecorder, the
// claude-code runtime's sub-agents) still does, and its children are
// reported too. Nil s: rec itself.
func (s *Session) Recorder(id string, rec turn.Recorder) turn.Recorder {
	if s == nil || rec == nil {
		return rec
	}
	if cr, ok := rec.(turn.ChildRecorder); ok {
		return childRecorder{recorder: recorder{Recorder: rec, s: s, id: id}, cr: cr}
	}
	return recorder{Recorder: rec, s: s, id: id}
}

type recorder struct {
	turn.Recorder
	s  *Session
	id string
}

func (r recorder) Append(ctx context.Context, m message.Message) error {
	err := r.Recorder.Append(ctx, m)
	if err == nil {
		r.s.modelCall(ctx, r.id, m)
	}
	return err
}

type childRecorder struct {
	recorder
	cr turn.ChildRecorder
}

func (r childRecorder) Child(ctx context.Context, parentToolUseID, title, model string) (string, turn.Recorder, error) {
	id, rec, err := r.cr.Child(ctx, parentToolUseID, title, model)
	if err != nil {
		return id, rec, err
	}
	r.s.Child(id, parentToolUseID, title)
	return id, r.s.Recorder(id, rec), nil
}
