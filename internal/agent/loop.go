package agent

import (
	"context"
	"encoding/json"
	"errors"

	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/structured"
	"github.com/tandem-agent/tandem/internal/turn"
)

// turnState is what one RunTurn accumulates.
type turnState struct {
	in       turn.Input
	d        turn.Deps
	model    Model
	spec     string   // the "provider/model" of model, for stored messages
	fallback []string // fallback specs not tried yet this turn
	history  []message.Message
	start    time.Time
	steps    int
	usage    message.Usage
	cost     *float64
	costOK   bool
	lastText string
	doom     doomTracker
	// context accounting (context.go) and compaction (compact.go)
	meter       meter
	lastUsed    int64 // size of the last request sent
	lastOut     int64 // output tokens of the last response
	compactions int
	futileStep  int                // step whose compaction left the request above the threshold
	budget      *turn.Budget       // nil: no --max-budget-usd
	schema      *structured.Schema // --json-schema, nil without
	repaired    bool               // the one repair request was made
	output      json.RawMessage    // the validated structured answer
	filter      permission.ToolFilter
	// stopHookActive: a Stop hook already kept this turn going.
	stopHookActive bool

	// denials grows from parallel read-only tool calls, as does hookStop
	// (a hook's stopReason: end the turn after this step).
	denyMu   sync.Mutex
	denials  []event.Denial
	hookStop *StopTurn
}

func (st *turnState) stopByHook(s *StopTurn) {
	st.denyMu.Lock()
	if st.hookStop == nil {
		st.hookStop = s
	}
	st.denyMu.Unlock()
}

func (st *turnState) stoppedByHook() *StopTurn {
	st.denyMu.Lock()
	defer st.denyMu.Unlock()
	return st.hookStop
}

func (st *turnState) deny(d event.Denial) {
	st.denyMu.Lock()
	st.denials = append(st.denials, d)
	st.denyMu.Unlock()
}

func (st *turnState) denialList() []event.Denial {
	st.denyMu.Lock()
	defer st.denyMu.Unlock()
	return append([]event.Denial(nil), st.denials...)
}

// RunTurn implements turn.Runtime.
func (r *Runtime) RunTurn(ctx context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	st := &turnState{in: in, d: d, start: time.Now(), costOK: true, doom: doomTracker{threshold: r.opts.DoomLoopThreshold},
		spec: in.Model, fallback: in.FallbackModels, filter: permission.NewToolFilter(in.AllowedTools, in.DisallowedTools).WithTools(d.Tools.Lookup()),
		budget: budgetFor(in)}
	if err := r.resolveModel(st); err != nil {
		return r.finish(ctx, st, event.SubtypeError, err), nil
	}
	st.applyTurnModel()
	if err := st.compileSchema(); err != nil {
		return r.finish(ctx, st, event.SubtypeError, err), nil
	}
	if err := checkImages(st); err != nil {
		return r.finish(ctx, st, event.SubtypeError, err), nil
	}
	d.Events.Emit(event.Event{Type: event.Status, Cwd: in.Cwd, Model: st.spec, Runtime: r.Name(),
		Tools: d.Tools.Names(), Mode: string(in.Mode)})

	history, err := d.Recorder.History(ctx)
	if err != nil {
		return event.Event{}, fmt.Errorf("load history: %w", err)
	}
	// A compaction boundary replaces what it summarised (compact.Effective).
	st.history = repairHistory(compact.Effective(history))
	r.loadWindow(ctx, st)
	if focus, ok := compact.Command(in.Prompt); ok {
		return r.manualCompact(ctx, st, focus), nil
	}
	if in.Resume {
		return r.resume(ctx, st)
	}

	prompt := in.Prompt
	if r.opts.Hooks != nil {
		block, extra, err := r.opts.Hooks.UserPromptSubmit(ctx, in.SessionID, in.Cwd, prompt)
		if err != nil {
			d.Events.Emit(event.Event{Type: event.Error, Error: "UserPromptSubmit hook: " + err.Error()})
		}
		if block != "" {
			return r.finish(ctx, st, event.SubtypeError, fmt.Errorf("prompt blocked by a UserPromptSubmit hook: %s", block)), nil
		}
		if extra != "" {
			prompt += "\n\n" + extra
		}
	}
	user := message.Message{ID: newID("msg"), Role: message.User, CreatedAt: time.Now().UTC(),
		Content: append(append([]message.Block{message.TextBlock(prompt)}, in.Images...), noticeBlocks(st.d.Env)...)}
	if err := st.record(ctx, user); err != nil {
		return event.Event{}, err
	}
	return r.steps(ctx, st)
}

// resume goes on with a turn another process began: its prompt and the
// steps it finished are stored. A conversation that ends with the model's
// answer had finished the turn; only the result was not told.
func (r *Runtime) resume(ctx context.Context, st *turnState) (event.Event, error) {
	if n := len(st.history); n > 0 {
		last := st.history[n-1]
		if last.Role == message.Assistant && len(last.ToolUses()) == 0 {
			st.lastText = last.PlainText()
			return r.finish(ctx, st, event.SubtypeSuccess, nil), nil
		}
	}
	return r.steps(ctx, st)
}

// steps is the outer loop: one iteration per model call.
func (r *Runtime) steps(ctx context.Context, st *turnState) (event.Event, error) {
	for {
		if ctx.Err() != nil {
			return r.finish(context.WithoutCancel(ctx), st, event.SubtypeInterrupted, nil), nil
		}
		if st.in.MaxTurns > 0 && st.steps >= st.in.MaxTurns {
			return r.finish(ctx, st, event.SubtypeMaxTurns, fmt.Errorf("reached the limit of %d turns (--max-turns)", st.in.MaxTurns)), nil
		}
		if err := st.overBudget(ctx); err != nil {
			return r.finish(ctx, st, event.SubtypeMaxBudget, err), nil
		}
		st.steps++
		resp, partial, err := r.callWithFallback(ctx, st)
		if err != nil {
			if ctx.Err() != nil {
				// Keep what the user already saw so a resume continues from it.
				if partial != "" {
					_ = st.record(context.WithoutCancel(ctx), assistantMessage(ctx, st, []message.Block{message.TextBlock(partial)}, nil))
				}
				return r.finish(context.WithoutCancel(ctx), st, event.SubtypeInterrupted, nil), nil
			}
			r.stopFailureHook(ctx, st, err)
			return r.finish(ctx, st, event.SubtypeProviderError, err), nil
		}
		msg := assistantMessage(ctx, st, resp.Content, &resp.Usage)
		if err := st.record(ctx, msg); err != nil {
			return event.Event{}, err
		}
		st.lastText = msg.PlainText()
		uses := msg.ToolUses()
		if len(uses) == 0 {
			if again := r.stopHook(ctx, st); again != "" {
				if err := st.record(ctx, userText(again)); err != nil {
					return event.Event{}, err
				}
				continue
			}
			if repair, err := st.checkStructured(); err != nil {
				return r.finish(ctx, st, event.SubtypeError, err), nil
			} else if repair != "" {
				if err := st.record(ctx, userText(repair)); err != nil {
					return event.Event{}, err
				}
				continue
			}
			return r.finish(ctx, st, event.SubtypeSuccess, nil), nil
		}
		results := r.runTools(ctx, st, uses)
		r.batchHook(ctx, st, uses, &results)
		if err := st.record(context.WithoutCancel(ctx), results); err != nil {
			return event.Event{}, err
		}
		if stop := st.stoppedByHook(); stop != nil {
			st.d.Events.Emit(event.Event{Type: event.Status, Message: "A hook stopped the turn: " + stop.Reason})
			return r.finish(ctx, st, event.SubtypeSuccess, nil), nil
		}
	}
}

// batchHook runs PostToolBatch once the step's calls are all done; its
// feedback follows the results, for the next model request.
func (r *Runtime) batchHook(ctx context.Context, st *turnState, uses []message.Block, results *message.Message) {
	if r.opts.Hooks == nil || ctx.Err() != nil {
		return
	}
	calls := make([]BatchCall, len(uses))
	for i, u := range uses {
		calls[i] = BatchCall{Name: u.Name, ID: u.ID, Input: u.Input}
		if i < len(results.Content) {
			b := results.Content[i]
			calls[i].IsError = b.IsError
			for _, c := range b.Content {
				if c.Type == message.Text {
					calls[i].Output += c.Text
				}
			}
		}
	}
	fb, err := r.opts.Hooks.PostToolBatch(ctx, st.in.SessionID, st.in.Cwd, calls)
	var stop *StopTurn
	switch {
	case errors.As(err, &stop):
		st.stopByHook(stop)
	case err != nil:
		st.d.Events.Emit(event.Event{Type: event.Error, Error: "PostToolBatch hook: " + err.Error()})
	}
	if n := len(results.Content); fb != "" && n > 0 {
		// In the last result: every provider's format carries it there.
		last := &results.Content[n-1]
		last.Content = append(last.Content, message.TextBlock("PostToolBatch hook feedback: "+fb))
	}
}

func (r *Runtime) stopHook(ctx context.Context, st *turnState) string {
	if r.opts.Hooks == nil {
		return ""
	}
	reason, err := r.opts.Hooks.Stop(ctx, st.in.SessionID, st.in.Cwd, st.stopHookActive, st.lastText)
	if err != nil {
		st.d.Events.Emit(event.Event{Type: event.Error, Error: "Stop hook: " + err.Error()})
		return ""
	}
	if reason != "" {
		st.stopHookActive = true
	}
	return reason
}

// stopFailureHook runs StopFailure for a turn the model call ended.
func (r *Runtime) stopFailureHook(ctx context.Context, st *turnState, cause error) {
	if r.opts.Hooks == nil {
		return
	}
	if err := r.opts.Hooks.StopFailure(ctx, st.in.SessionID, st.in.Cwd, cause, st.lastText); err != nil {
		st.d.Events.Emit(event.Event{Type: event.Error, Error: "StopFailure hook: " + err.Error()})
	}
}

// record appends m to the stored conversation and to the in-memory history.
func (st *turnState) record(ctx context.Context, m message.Message) error {
	if err := st.d.Recorder.Append(ctx, m); err != nil {
		return fmt.Errorf("record %s message: %w", m.Role, err)
	}
	st.history = append(st.history, m)
	return nil
}

func assistantMessage(ctx context.Context, st *turnState, blocks []message.Block, u *message.Usage) message.Message {
	m := message.Message{ID: newID("msg"), Role: message.Assistant, Content: blocks,
		Model: st.spec, CreatedAt: time.Now().UTC()}
	if u != nil {
		uu := *u
		m.Usage = &uu
		st.usage = st.usage.Add(uu)
		if st.model.Cost != nil {
			m.CostUSD = st.model.Cost(uu)
		}
		st.spend(ctx, m.CostUSD)
		if m.CostUSD == nil {
			st.costOK = false
		} else if st.costOK {
			sum := *m.CostUSD
			if st.cost != nil {
				sum += *st.cost
			}
			st.cost = &sum
		}
	}
	return m
}

func userText(s string) message.Message {
	return message.Message{ID: newID("msg"), Role: message.User, Content: []message.Block{message.TextBlock(s)}, CreatedAt: time.Now().UTC()}
}

// finish emits the result event (and done) and returns it.
func (r *Runtime) finish(ctx context.Context, st *turnState, subtype string, err error) event.Event {
	res := event.Event{Type: event.Result, Subtype: subtype, IsError: subtype != event.SubtypeSuccess,
		Result: st.lastText, NumTurns: st.steps, DurationMS: time.Since(st.start).Milliseconds(),
		PermissionDenials: st.denialList(), StructuredOutput: st.output}
	r.endContext(ctx, st)
	u := st.usage
	res.Usage = &u
	if st.costOK {
		zero := 0.0
		if st.cost == nil {
			st.cost = &zero
		}
		res.CostUSD = st.cost
	}
	switch {
	case err != nil:
		res.Error = err.Error()
		if pe, ok := provider.AsError(err); ok && pe.Auth {
			res.Error += " (check the API key: set ANTHROPIC_API_KEY / OPENAI_API_KEY or the provider's api_key_env in tandem's config)"
		}
	case subtype == event.SubtypeInterrupted:
		res.Error = "interrupted"
	}
	res = st.d.Events.Publish(res)
	st.d.Events.Emit(event.Event{Type: event.Done})
	return res
}

func newID(prefix string) string {
	id, err := uuid.NewV7()
	if err != nil {
		return prefix + "_" + uuid.NewString()
	}
	return prefix + "_" + strings.ReplaceAll(id.String(), "-", "")
}
