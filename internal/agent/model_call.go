package agent

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// callModel makes one step's provider call, retrying what can be retried.
// It returns the text streamed so far when the call ends in an interrupt,
// so the caller can keep it.
func (r *Runtime) callModel(ctx context.Context, st *turnState, req provider.Request) (*provider.Response, string, error) {
	return r.stream(ctx, st, st.model.Provider, req, true)
}

// stream makes one provider call with retries; live deltas become events
// when emit is set (a summary call streams silently).
func (r *Runtime) stream(ctx context.Context, st *turnState, p provider.Provider, req provider.Request, emit bool) (*provider.Response, string, error) {
	msgID := newID("msg")
	for attempt := 1; ; attempt++ {
		var partial strings.Builder
		resp, err := p.Stream(ctx, req, func(d provider.Delta) {
			if !emit {
				return
			}
			switch d.Kind {
			case provider.DeltaText:
				partial.WriteString(d.Text)
				st.d.Events.Emit(event.Event{Type: event.Text, Text: d.Text, MessageID: msgID})
			case provider.DeltaThinking:
				st.d.Events.Emit(event.Event{Type: event.Thinking, Text: d.Text, MessageID: msgID})
			}
		})
		if err == nil {
			return resp, "", nil
		}
		if ctx.Err() != nil {
			return nil, partial.String(), ctx.Err()
		}
		pe, ok := provider.AsError(err)
		if _, overflow := compact.ParseOverflow(err); overflow {
			// Retrying the same request cannot help; compaction can.
			return nil, partial.String(), err
		}
		if !ok || !pe.Retryable || attempt >= r.opts.Retry.MaxAttempts {
			return nil, partial.String(), err
		}
		delay := r.backoff(attempt, pe.RetryAfter)
		st.d.Events.Emit(event.Event{Type: event.Retry, Attempt: attempt, DelayMS: delay.Milliseconds(),
			HTTPStatus: pe.Status, Error: pe.Error(), MessageID: msgID})
		if err := r.opts.Sleep(ctx, delay); err != nil {
			return nil, "", err
		}
	}
}

// backoff honours the server's Retry-After when given, else grows
// exponentially with jitter so parallel sessions do not retry in lockstep.
func (r *Runtime) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, r.opts.Retry.MaxDelay)
	}
	d := r.opts.Retry.BaseDelay << (attempt - 1)
	if d <= 0 || d > r.opts.Retry.MaxDelay {
		d = r.opts.Retry.MaxDelay
	}
	jitter := time.Duration(rand.Int64N(int64(d)/4 + 1))
	return d - d/8 + jitter
}

// buildRequest is the next request with msgs as its conversation.
func (r *Runtime) buildRequest(st *turnState, msgs []message.Message) provider.Request {
	specs := toolSpecs(st)
	system := r.opts.System(st.in.Cwd, st.in.AppendSystemPrompt)
	if st.in.SystemPrompt != "" {
		// --system-prompt replaces tandem's prompt and project instructions,
		// as Claude Code's flag does; --append-system-prompt still applies.
		system = []string{st.in.SystemPrompt}
		if st.in.AppendSystemPrompt != "" {
			system = append(system, st.in.AppendSystemPrompt)
		}
	}
	var outSchema json.RawMessage
	if st.schema != nil {
		system = append(system, st.schema.Instruction())
		outSchema = st.schema.Raw()
	}
	return provider.Request{
		OutputSchema:   outSchema,
		NativeOutput:   outSchema != nil && st.model.NativeOutput,
		Model:          st.model.ID,
		System:         system,
		Messages:       msgs,
		Tools:          specs,
		MaxTokens:      st.model.MaxOutput,
		ThinkingBudget: st.model.ThinkingBudget,
		Effort:         st.model.Effort,
		ThinkingMode:   st.model.ThinkingMode,
	}
}

func toolSpecs(st *turnState) []provider.ToolSpec {
	var out []provider.ToolSpec
	for _, t := range st.d.Tools.List() {
		if !st.filter.Offered(t.Name()) {
			continue
		}
		out = append(out, provider.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()})
	}
	return out
}
