package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/provider"
)

// resolveModel resolves the turn's model; when it cannot be used at all (a
// disabled provider, a missing key) the fallback models are tried in order.
func (r *Runtime) resolveModel(st *turnState) error {
	model, err := r.opts.Models.Resolve(st.spec)
	if err == nil {
		st.model = model
		r.notice(st, model)
		return nil
	}
	err = fmt.Errorf("model %q: %w", st.spec, err)
	if len(st.fallback) == 0 {
		return err
	}
	if r.nextFallback(st, err) {
		return nil
	}
	return err
}

// callWithFallback is callFitted that, when an error outlives the retries
// and another model might not share it, moves on to the next fallback
// model for the rest of the turn. Cost and the stored message's model then
// follow the model that answered.
func (r *Runtime) callWithFallback(ctx context.Context, st *turnState) (*provider.Response, string, error) {
	for {
		resp, partial, err := r.callFitted(ctx, st)
		if err == nil || ctx.Err() != nil || !fallbackWorthy(err) || !r.nextFallback(st, err) {
			return resp, partial, err
		}
	}
}

// fallbackWorthy: what another model may not suffer from. A refused key or
// a bad request would fail the same way elsewhere, or needs the user.
func fallbackWorthy(err error) bool {
	pe, ok := provider.AsError(err)
	if !ok {
		return false
	}
	return !pe.Auth && (pe.Retryable || pe.Status == http.StatusNotFound)
}

// nextFallback switches st to the first remaining fallback model that
// resolves, announcing it with a retry event that names the model; the
// ones that do not resolve are reported as errors and skipped. It reports
// whether a model was found.
func (r *Runtime) nextFallback(st *turnState, cause error) bool {
	for len(st.fallback) > 0 {
		spec := st.fallback[0]
		st.fallback = st.fallback[1:]
		if spec == st.spec || spec == "" {
			continue
		}
		model, err := r.opts.Models.Resolve(spec)
		if err != nil {
			st.d.Events.Emit(event.Event{Type: event.Error, Model: spec,
				Error: fmt.Sprintf("fallback model %s skipped: %v", spec, err)})
			continue
		}
		ev := event.Event{Type: event.Retry, Model: spec, Error: cause.Error(),
			Message: fmt.Sprintf("%s failed; falling back to %s", st.spec, spec)}
		var pe *provider.Error
		if errors.As(cause, &pe) {
			ev.HTTPStatus = pe.Status
		}
		st.d.Events.Emit(ev)
		st.model, st.spec = model, spec
		st.applyTurnModel()
		return true
	}
	return false
}

// applyTurnModel applies what the turn overrides of the model's
// configuration: a skill's or sub-agent's effort, the host's thinking
// budget.
func (st *turnState) applyTurnModel() {
	if st.in.Effort != "" {
		st.model.Effort = st.in.Effort
	}
	if b := st.in.ThinkingBudget; b != nil {
		st.model.ThinkingBudget = max(*b, 0)
	}
}

// notice says a model's notice (legacy, deprecated) once per session.
func (r *Runtime) notice(st *turnState, m Model) {
	if m.Notice == "" {
		return
	}
	r.mu.Lock()
	said := r.noticed[m.Notice]
	if r.noticed == nil {
		r.noticed = map[string]bool{}
	}
	r.noticed[m.Notice] = true
	r.mu.Unlock()
	if !said {
		st.d.Events.Emit(event.Event{Type: event.Status, Model: st.spec, Message: m.Notice})
	}
}
