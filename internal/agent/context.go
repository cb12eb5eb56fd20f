package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// Session meta keys owned by context accounting.
const (
	// metaContext is the last context measurement, JSON {tokens, window}.
	metaContext = "context"
	// metaLearnedLimit is the input limit a provider's overflow error
	// revealed, JSON {model, tokens}; it outranks the catalog's window.
	metaLearnedLimit = "context_limit"
)

// maxRecoveries bounds compactions for overflow errors in one step.
const maxRecoveries = 2

// meter tracks how full the window is. The provider's reported input of
// the last request is exact; what changed since is estimated, scaled by
// how the provider's counts compared with our estimates so far.
type meter struct {
	window    int64   // tokens; 0 unknown
	reported  int64   // input+cache tokens the provider counted for the last request
	estimated int64   // our estimate of that request
	ratio     float64 // provider tokens per estimated token
}

func (m *meter) used(est int64) int64 {
	r := m.ratio
	if r == 0 {
		r = 1
	}
	if m.reported > 0 {
		return max(m.reported+int64(float64(est-m.estimated)*r), 0)
	}
	return int64(float64(est) * r)
}

// observe records a response's usage for the request estimated at est.
func (m *meter) observe(u message.Usage, est int64) {
	in := u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
	if in <= 0 || est <= 0 {
		return
	}
	m.reported, m.estimated = in, est
	m.ratio = min(max(float64(in)/float64(est), 0.5), 3)
}

// forget drops the last report after the conversation changed wholesale
// (a compaction); the ratio stays, it describes the tokenizer.
func (m *meter) forget() { m.reported, m.estimated = 0, 0 }

// loadWindow starts the meter: the model's window, lowered by a limit
// learned from an earlier overflow of the same model.
func (r *Runtime) loadWindow(ctx context.Context, st *turnState) {
	st.meter.window = st.model.ContextWindow
	raw, err := st.d.Recorder.Meta(ctx, metaLearnedLimit)
	if err != nil || raw == "" {
		return
	}
	var l struct {
		Model  string `json:"model"`
		Tokens int64  `json:"tokens"`
	}
	if json.Unmarshal([]byte(raw), &l) != nil || l.Model != st.spec || l.Tokens <= 0 {
		return
	}
	if st.meter.window == 0 || l.Tokens < st.meter.window {
		st.meter.window = l.Tokens
	}
}

// learn lowers the window to what an overflow error revealed and keeps it
// with the session, so later turns and resumes start from it.
func (r *Runtime) learn(ctx context.Context, st *turnState, ov compact.Overflow, sent int64) {
	limit := ov.LearnedLimit(sent)
	if limit <= 0 {
		// Nothing named: assume the request was just over and aim lower.
		limit = sent * 9 / 10
	}
	if limit <= 0 || (st.meter.window > 0 && limit >= st.meter.window) {
		return
	}
	st.meter.window = limit
	data, _ := json.Marshal(map[string]any{"model": st.spec, "tokens": limit})
	if err := st.d.Recorder.SetMeta(ctx, metaLearnedLimit, string(data)); err != nil {
		st.d.Events.Emit(event.Event{Type: event.Error, Error: "remember the context limit: " + err.Error()})
	}
	said := "the catalog names none"
	if st.model.ContextWindow > 0 {
		said = fmt.Sprintf("smaller than the %d the catalog or config says", st.model.ContextWindow)
	}
	st.d.Events.Emit(event.Event{Type: event.Status, Message: fmt.Sprintf(
		"the provider's context limit is %d tokens (%s); using it for this session (set context_window in tandem's config to make it permanent)",
		limit, said)})
}

// prepared is a request ready to send with its size.
type prepared struct {
	req  provider.Request
	est  int64 // our estimate
	used int64 // provider tokens, as the meter predicts
}

// prepare builds the next request from the pruned history.
func (r *Runtime) prepare(st *turnState) prepared {
	msgs, _ := compact.Prune(st.history, r.opts.Compaction)
	req := r.buildRequest(st, msgs)
	est := compact.RequestTokens(req)
	p := prepared{req: req, est: est, used: st.meter.used(est)}
	fitOutput(&p.req, p.used, st.meter.window)
	return p
}

// minOutput is the smallest max_tokens fitOutput leaves a request.
const minOutput = 4096

// fitOutput lowers max_tokens (and the thinking budget under it) when
// the prompt and the requested output together would pass the window:
// Anthropic (since Claude 3.7), vLLM and others refuse such a request
// instead of answering shorter.
func fitOutput(req *provider.Request, used, window int64) {
	if window <= 0 || req.MaxTokens <= 0 {
		return
	}
	room := window - used - window/50 // 2% for the estimate's error
	if room >= req.MaxTokens {
		return
	}
	req.MaxTokens = max(room, minOutput)
	if req.ThinkingBudget > 0 && req.ThinkingBudget > req.MaxTokens-minOutput {
		req.ThinkingBudget = req.MaxTokens - minOutput
		if req.ThinkingBudget < 1024 { // the smallest budget providers accept
			req.ThinkingBudget = 0
		}
	}
}

// callFitted makes one step's call within the window: it compacts first
// when the request would pass the threshold, and compacts and retries when
// the provider says the request was too long anyway.
func (r *Runtime) callFitted(ctx context.Context, st *turnState) (*provider.Response, string, error) {
	cfg := r.opts.Compaction
	p := r.prepare(st)
	if cfg.AutoOn() && st.meter.window > 0 && p.used > cfg.ThresholdTokens(st.meter.window) && len(st.history) > 1 && !st.thrashing() {
		if err := r.compact(ctx, st, compact.TriggerAuto, "", p.used); err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			st.d.Events.Emit(event.Event{Type: event.Error, Error: "auto-compaction: " + err.Error()})
		}
		p = r.prepare(st)
	}
	for recoveries := 0; ; recoveries++ {
		resp, partial, err := r.callModel(ctx, st, p.req)
		if err == nil {
			st.meter.observe(resp.Usage, p.est)
			st.lastUsed, st.lastOut = st.meter.used(p.est), resp.Usage.OutputTokens
			r.emitContext(st, st.lastUsed+st.lastOut)
			return resp, "", nil
		}
		ov, isOverflow := compact.ParseOverflow(err)
		if !isOverflow || ctx.Err() != nil {
			return nil, partial, err
		}
		if ov.OutputTooLarge() {
			return nil, partial, fmt.Errorf("%w (the server counts the requested output, %d tokens, against its %d-token window: give the model a larger context on the server, or use a model with a smaller max output)", err, ov.Output, ov.Limit)
		}
		sent := max(ov.Sent, p.used)
		r.learn(ctx, st, ov, sent)
		if !cfg.AutoOn() {
			return nil, partial, fmt.Errorf("%w (the conversation no longer fits in the model's context window and auto-compaction is off: send /compact, or turn compaction.auto on)", err)
		}
		if recoveries >= maxRecoveries {
			return nil, partial, fmt.Errorf("%w (the conversation does not fit in the model's context window even after compaction: start a new session, use a model with a larger window, or shorten the last message)", err)
		}
		if cerr := r.compact(ctx, st, compact.TriggerOverflow, "", sent); cerr != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			return nil, partial, fmt.Errorf("%w (compacting to recover failed: %v; start a new session or use a model with a larger window)", err, cerr)
		}
		p = r.prepare(st)
	}
}

// emitContext reports the window's fill.
func (r *Runtime) emitContext(st *turnState, used int64) {
	st.d.Events.Emit(event.Event{Type: event.Context, ContextTokens: used, ContextWindow: st.meter.window})
}

// saveContext keeps the last measurement with the session for `tandem
// sessions show` and the web UI.
func (r *Runtime) saveContext(ctx context.Context, st *turnState) {
	if st.lastUsed == 0 {
		return
	}
	used := st.lastUsed + st.lastOut
	data := `{"tokens":` + strconv.FormatInt(used, 10) + `,"window":` + strconv.FormatInt(st.meter.window, 10) + `}`
	_ = st.d.Recorder.SetMeta(ctx, metaContext, data)
}

// endContext keeps the window's fill as the turn leaves it: the last
// request plus the reply that joins the conversation.
func (r *Runtime) endContext(ctx context.Context, st *turnState) {
	r.saveContext(context.WithoutCancel(ctx), st)
}

// thrashing reports that a compaction in the last step left the request
// above the threshold (a huge recent message): compacting again at once
// would only pay for another summary. Overflow recovery still applies.
func (st *turnState) thrashing() bool {
	return st.futileStep > 0 && st.steps-st.futileStep < 2
}
