package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// CompactHooks runs the PreCompact and PostCompact hooks. PreCompact may
// block the compaction (a non-empty reason); trigger is auto, manual or
// overflow, customInstructions the /compact focus.
type CompactHooks interface {
	PreCompact(ctx context.Context, sessionID, cwd, trigger, customInstructions string) (block string, err error)
	PostCompact(ctx context.Context, sessionID, cwd, trigger, summary string) error
}

// errNothingToCompact: the conversation is too short to summarise.
var errNothingToCompact = errors.New("nothing to compact yet: the conversation has no earlier messages")

// summaryMaxTokens caps a summary's length.
const summaryMaxTokens = 8192

// compact summarises the conversation before the verbatim tail, stores the
// boundary and continues from it. Nothing is stored until the summary is
// complete, so an interrupt or a kill leaves the session as it was.
func (r *Runtime) compact(ctx context.Context, st *turnState, trigger, focus string, before int64) error {
	hist := st.history
	if len(hist) < 2 {
		return errNothingToCompact
	}
	if h := r.opts.CompactHooks; h != nil {
		block, err := h.PreCompact(ctx, st.in.SessionID, st.in.Cwd, trigger, focus)
		if err != nil {
			st.d.Events.Emit(event.Event{Type: event.Error, Error: "PreCompact hook: " + err.Error()})
		}
		if block != "" {
			return fmt.Errorf("compaction blocked by a PreCompact hook: %s", block)
		}
	}
	st.d.Events.Emit(event.Event{Type: event.Status, Message: fmt.Sprintf("compacting the conversation (%s): about %d tokens of a %d-token window", trigger, before, st.meter.window)})
	w := r.summaryWindow(st, st.model)
	cut := compact.Cut(hist, r.opts.Compaction.KeepRecent(w), w/2)
	sm, spec, err := r.summaryModel(st)
	if err != nil {
		return err
	}
	summary, usage, err := r.summarise(ctx, st, sm, hist[:cut], focus)
	if err != nil {
		return err
	}
	b, err := r.boundary(ctx, st, sm, spec, summary, usage, trigger, focus, before)
	if err != nil {
		return err
	}
	if cut < len(hist) {
		b.Compaction.KeepFrom = hist[cut].ID
	}
	next := repairHistory(append([]message.Message{b}, hist[cut:]...))
	st.meter.forget()
	b.Compaction.TokensAfter = st.meter.used(compact.RequestTokens(r.buildRequest(st, next)))
	if err := st.d.Recorder.Append(context.WithoutCancel(ctx), b); err != nil {
		return fmt.Errorf("store the compaction: %w", err)
	}
	st.history = next
	r.compacted(ctx, st, b, summary)
	return nil
}

// boundary builds the stored boundary message: the summary, the todo list
// as the last TodoWrite left it, and the summary calls' cost.
func (r *Runtime) boundary(ctx context.Context, st *turnState, sm Model, spec, summary string, usage message.Usage, trigger, focus string, before int64) (message.Message, error) {
	stored, err := st.d.Recorder.History(ctx)
	if err != nil {
		return message.Message{}, fmt.Errorf("load history for the todo list: %w", err)
	}
	b := message.Message{ID: newID("msg"), Role: message.User, Kind: message.KindCompaction, CreatedAt: time.Now().UTC(),
		Content:    []message.Block{message.TextBlock(compact.BoundaryText(summary, compact.LatestTodos(stored)))},
		Compaction: &message.Compaction{Trigger: trigger, TokensBefore: before, Model: spec, Focus: focus}}
	r.chargeSummary(ctx, st, &b, sm, usage)
	return b, nil
}

// compacted reports a stored boundary: events, the thrash guard, the
// PostCompact hook.
func (r *Runtime) compacted(ctx context.Context, st *turnState, b message.Message, summary string) {
	c := b.Compaction
	st.compactions++
	st.futileStep = 0
	if w := st.meter.window; w > 0 && c.TokensAfter > r.opts.Compaction.ThresholdTokens(w) {
		st.futileStep = st.steps
	}
	st.d.Events.Emit(event.Event{Type: event.CompactBoundary, MessageID: b.ID, Trigger: c.Trigger,
		TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter})
	st.lastUsed, st.lastOut = c.TokensAfter, 0
	r.emitContext(st, c.TokensAfter)
	if h := r.opts.CompactHooks; h != nil {
		if err := h.PostCompact(context.WithoutCancel(ctx), st.in.SessionID, st.in.Cwd, c.Trigger, summary); err != nil {
			st.d.Events.Emit(event.Event{Type: event.Error, Error: "PostCompact hook: " + err.Error()})
		}
	}
}

// summaryModel is compaction.model when set, else the session's model.
func (r *Runtime) summaryModel(st *turnState) (Model, string, error) {
	spec := r.opts.Compaction.Model
	if spec == "" || spec == st.spec {
		return st.model, st.spec, nil
	}
	m, err := r.opts.Models.Resolve(spec)
	if err != nil {
		return Model{}, "", fmt.Errorf("compaction.model %q: %w", spec, err)
	}
	return m, spec, nil
}

// summaryWindow is the window a summary request must fit in.
func (r *Runtime) summaryWindow(st *turnState, m Model) int64 {
	w := m.ContextWindow
	if m.Provider == st.model.Provider && m.ID == st.model.ID {
		w = st.meter.window
	}
	if w <= 0 {
		w = 100_000
	}
	return w
}

// summarise asks the model for the summary of msgs. A conversation larger
// than the window is summarised in passes; a summary request that
// overflows anyway is split further.
func (r *Runtime) summarise(ctx context.Context, st *turnState, m Model, msgs []message.Message, focus string) (string, message.Usage, error) {
	var total message.Usage
	window := r.summaryWindow(st, m)
	maxOut := min(orDefault(m.MaxOutput, summaryMaxTokens), summaryMaxTokens)
	budget := int64(float64(window)*0.9) - compact.Tokens(compact.SummaryPrompt) - maxOut - 1000
	budget = int64(float64(budget) / max(st.meter.ratio, 1))
	for attempt := 0; attempt < 3 && budget > 1000; attempt++ {
		summary, err := r.summaryPasses(ctx, st, m, msgs, focus, budget, maxOut, &total)
		if err == nil {
			return summary, total, nil
		}
		if _, ok := compact.ParseOverflow(err); !ok || ctx.Err() != nil {
			return "", total, fmt.Errorf("write the summary: %w", err)
		}
		budget /= 2
	}
	return "", total, fmt.Errorf("the conversation could not be summarised within the model's %d-token window", window)
}

func (r *Runtime) summaryPasses(ctx context.Context, st *turnState, m Model, msgs []message.Message, focus string, budget, maxOut int64, total *message.Usage) (string, error) {
	prev := ""
	for _, chunk := range compact.Chunks(msgs, budget) {
		req := provider.Request{Model: m.ID, System: []string{compact.SummaryPrompt}, MaxTokens: maxOut,
			Messages: []message.Message{{Role: message.User, Content: []message.Block{
				message.TextBlock(compact.Instructions(compact.Transcript(chunk), prev, focus))}}}}
		resp, _, err := r.stream(ctx, st, m.Provider, req, false)
		if err != nil {
			return "", err
		}
		*total = total.Add(resp.Usage)
		var text strings.Builder
		for _, b := range resp.Content {
			if b.Type == message.Text {
				text.WriteString(b.Text)
			}
		}
		if strings.TrimSpace(text.String()) == "" {
			return "", errors.New("write the summary: the model returned no text")
		}
		prev = text.String()
	}
	return prev, nil
}

// chargeSummary puts the summary calls' usage and cost on the boundary
// message and the turn's totals.
func (r *Runtime) chargeSummary(ctx context.Context, st *turnState, b *message.Message, m Model, u message.Usage) {
	b.Usage = &u
	st.usage = st.usage.Add(u)
	if m.Cost != nil {
		b.CostUSD = m.Cost(u)
	}
	st.spend(ctx, b.CostUSD)
	if b.CostUSD == nil {
		st.costOK = false
	} else if st.costOK {
		sum := *b.CostUSD
		if st.cost != nil {
			sum += *st.cost
		}
		st.cost = &sum
	}
}

// manualCompact runs "/compact [focus]" as a whole turn.
func (r *Runtime) manualCompact(ctx context.Context, st *turnState, focus string) event.Event {
	p := r.prepare(st)
	if err := r.compact(ctx, st, compact.TriggerManual, focus, p.used); err != nil {
		if ctx.Err() != nil {
			return r.finish(context.WithoutCancel(ctx), st, event.SubtypeInterrupted, nil)
		}
		if errors.Is(err, errNothingToCompact) {
			st.lastText = "Nothing to compact yet."
			return r.finish(ctx, st, event.SubtypeSuccess, nil)
		}
		return r.finish(ctx, st, event.SubtypeError, fmt.Errorf("compact: %w", err))
	}
	after := st.lastUsed
	st.lastText = fmt.Sprintf("Compacted the conversation: about %d tokens before, %d after.", p.used, after)
	return r.finish(ctx, st, event.SubtypeSuccess, nil)
}

func orDefault(v, def int64) int64 {
	if v > 0 {
		return v
	}
	return def
}
