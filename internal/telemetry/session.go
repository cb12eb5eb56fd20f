//go:build !notelemetry

package telemetry

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/secrets"
)

// maxText bounds a prompt, an input or an error carried in an attribute.
const maxText = 16 << 10

// Session derives one live session's telemetry from its events, its
// recorder and its turns. A nil *Session does nothing.
type Session struct {
	t      *Telemetry
	id     string
	redact *secrets.Redactor

	mu       sync.Mutex
	counted  bool
	seq      int64
	turn     *turnSpan            // the running top-level turn
	children map[string]*turnSpan // sub-agents' turns, by the tool call that started them
	childOf  map[string]string    // a sub-agent's session id: that tool call's id
	tools    map[string]*toolSpan // by tool_use id
	waits    map[string]*waitSpan // permission waits, by request id
}

// turnSpan is a turn (or a sub-agent's run) in progress.
type turnSpan struct {
	span  trace.Span
	ctx   context.Context
	start time.Time
	// mark is where the next model call began: the turn's start, the last
	// tool result, the last model call's end.
	mark  time.Time
	model string
}

// toolSpan is a tool call between its tool_use and tool_result events.
type toolSpan struct {
	span     trace.Span
	ctx      context.Context
	name     string
	input    []byte
	start    time.Time
	parent   string // parent_tool_use_id: "" for the session's own
	decision string // accept | reject, once known
	source   string
}

// waitSpan is a permission question waiting for its answer.
type waitSpan struct {
	span      trace.Span
	toolUseID string
}

// Session starts the telemetry of the live session id; redact removes the
// session's secret values from anything exported. Nil when t is nil.
func (t *Telemetry) Session(id string, redact *secrets.Redactor) *Session {
	if t == nil {
		return nil
	}
	return &Session{t: t, id: id, redact: redact, children: map[string]*turnSpan{},
		childOf: map[string]string{}, tools: map[string]*toolSpan{}, waits: map[string]*waitSpan{}}
}

// attrs are the common attributes plus the session's and extra.
func (s *Session) attrs(extra ...attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(s.t.common)+1+len(extra))
	out = append(out, s.t.common...)
	out = append(out, attribute.String(attrSessionID, s.id))
	return append(out, extra...)
}

// text is s redacted and bounded, for an attribute.
func (s *Session) text(v string) string {
	if s.redact != nil {
		v = s.redact.Redact(v)
	}
	if len(v) > maxText {
		v = v[:maxText] + "…"
	}
	return v
}

// logEvent emits one Claude Code event as a log record. Called with s.mu held.
func (s *Session) logEvent(ctx context.Context, at time.Time, name string, extra ...attribute.KeyValue) {
	s.seq++
	var r log.Record
	r.SetTimestamp(at)
	r.SetObservedTimestamp(at)
	r.SetEventName("claude_code." + name)
	r.SetBody(attribute.StringValue("claude_code." + name))
	r.AddAttributes(attribute.String("event.name", name), attribute.String("event.timestamp", at.UTC().Format(time.RFC3339Nano)),
		attribute.Int64("event.sequence", s.seq))
	r.AddAttributes(s.attrs(extra...)...)
	s.t.logger.Emit(ctx, r)
}

// BeginTurn starts a top-level turn's span (a child of any span in ctx)
// and its user_prompt event, and returns ctx carrying the span.
func (s *Session) BeginTurn(ctx context.Context, prompt, model string) context.Context {
	if s == nil {
		return ctx
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.counted {
		s.counted = true
		s.t.inst.sessions.Add(ctx, 1, metric.WithAttributes(s.attrs()...))
	}
	shown := redacted
	if s.t.plan.LogUserPrompts {
		shown = s.text(prompt)
	}
	ctx, span := s.t.tracer.Start(ctx, SpanInteraction, trace.WithTimestamp(now), trace.WithAttributes(s.attrs(
		attribute.String("user_prompt", shown), attribute.Int("user_prompt_length", len(prompt)))...))
	s.turn = &turnSpan{span: span, ctx: ctx, start: now, mark: now, model: model}
	ev := []attribute.KeyValue{attribute.String("prompt_length", strconv.Itoa(len(prompt)))}
	if s.t.plan.LogUserPrompts {
		ev = append(ev, attribute.String("prompt", shown))
	}
	s.logEvent(ctx, now, EventUserPrompt, ev...)
	return ctx
}

// EndTurn ends the turn begun last with its result (err: it ended
// without one). Spans still open (an interrupt) end with it.
func (s *Session) EndTurn(res event.Event, err error) {
	if s == nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turn
	if t == nil {
		return
	}
	s.turn = nil
	for id, w := range s.waits {
		w.span.End(trace.WithTimestamp(now))
		delete(s.waits, id)
	}
	for id, ts := range s.tools {
		ts.span.SetStatus(codes.Error, "unfinished")
		ts.span.End(trace.WithTimestamp(now))
		delete(s.tools, id)
	}
	for id, c := range s.children {
		c.span.End(trace.WithTimestamp(now))
		delete(s.children, id)
	}
	clear(s.childOf)
	if res.Subtype == event.SubtypeProviderError {
		s.logEvent(t.ctx, now, EventAPIError, attribute.String("model", t.model), attribute.String("error", s.text(res.Error)),
			attribute.String("duration_ms", strconv.FormatInt(now.Sub(t.mark).Milliseconds(), 10)))
	}
	t.span.SetAttributes(attribute.String("result.subtype", res.Subtype), attribute.Int("num_turns", res.NumTurns),
		attribute.Int64("interaction.duration_ms", now.Sub(t.start).Milliseconds()))
	switch {
	case err != nil:
		t.span.SetStatus(codes.Error, s.text(err.Error()))
	case res.IsError:
		t.span.SetStatus(codes.Error, s.text(firstSet(res.Error, res.Subtype)))
	}
	t.span.End(trace.WithTimestamp(now))
	s.t.inst.activeTime.Add(t.ctx, now.Sub(t.start).Seconds(), metric.WithAttributes(s.attrs(attribute.String("type", "cli"))...))
}

// Child starts the span of a sub-agent whose session childID the tool
// call toolUseID started: a child of that call's span; its model calls are
// reported by the recorder ChildRecorder returns.
func (s *Session) Child(childID, toolUseID, agent string) {
	if s == nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	parent := s.parentCtx(toolUseID)
	ctx, span := s.t.tracer.Start(parent, SpanSubagent, trace.WithTimestamp(now), trace.WithAttributes(s.attrs(
		attribute.String("subagent.session.id", childID), attribute.String("tool_use_id", toolUseID), attribute.String("agent", agent))...))
	model := ""
	if s.turn != nil {
		model = s.turn.model
	}
	s.children[toolUseID] = &turnSpan{span: span, ctx: ctx, start: now, mark: now, model: model}
	s.childOf[childID] = toolUseID
}

// parentCtx is the context a span under the tool call id (or, for "", the
// turn) starts from. Called with s.mu held.
func (s *Session) parentCtx(toolUseID string) context.Context {
	if toolUseID != "" {
		if ts, ok := s.tools[toolUseID]; ok {
			return ts.ctx
		}
	}
	if s.turn != nil {
		return s.turn.ctx
	}
	return context.Background()
}

// owner is the turn an event of parentToolUseID belongs to. Called with s.mu held.
func (s *Session) owner(parentToolUseID string) *turnSpan {
	if parentToolUseID != "" {
		if c, ok := s.children[parentToolUseID]; ok {
			return c
		}
	}
	return s.turn
}

// modelCall reports one model call of session sessionID (s's own or a
// sub-agent's) whose assistant message m was just stored.
func (s *Session) modelCall(ctx context.Context, sessionID string, m message.Message) {
	if s == nil || m.Role != message.Assistant || m.Usage == nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turn
	if sessionID != s.id {
		t = s.children[s.childOf[sessionID]]
	}
	if t == nil {
		return
	}
	start := t.mark
	t.mark = now
	model := firstSet(m.Model, t.model)
	t.model = model // the id the provider answered with, for what follows (lines of code)
	u := *m.Usage
	usage := []attribute.KeyValue{attribute.Int64("input_tokens", u.InputTokens), attribute.Int64("output_tokens", u.OutputTokens),
		attribute.Int64("cache_read_tokens", u.CacheReadTokens), attribute.Int64("cache_creation_tokens", u.CacheCreationTokens)}
	spanAttrs := append([]attribute.KeyValue{attribute.String("model", model), attribute.String("gen_ai.request.model", model)}, usage...)
	if m.CostUSD != nil {
		spanAttrs = append(spanAttrs, attribute.Float64("cost_usd", *m.CostUSD))
	}
	_, span := s.t.tracer.Start(t.ctx, SpanLLMRequest, trace.WithTimestamp(start), trace.WithAttributes(spanAttrs...))
	span.End(trace.WithTimestamp(now))
	for _, tk := range []struct {
		typ string
		n   int64
	}{{"input", u.InputTokens}, {"output", u.OutputTokens}, {"cacheRead", u.CacheReadTokens}, {"cacheCreation", u.CacheCreationTokens}} {
		if tk.n > 0 {
			s.t.inst.tokens.Add(t.ctx, tk.n, metric.WithAttributes(s.attrs(attribute.String("type", tk.typ), attribute.String("model", model))...))
		}
	}
	ev := []attribute.KeyValue{attribute.String("model", model), attribute.String("duration_ms", strconv.FormatInt(now.Sub(start).Milliseconds(), 10)),
		attribute.String("input_tokens", strconv.FormatInt(u.InputTokens, 10)), attribute.String("output_tokens", strconv.FormatInt(u.OutputTokens, 10)),
		attribute.String("cache_read_tokens", strconv.FormatInt(u.CacheReadTokens, 10)),
		attribute.String("cache_creation_tokens", strconv.FormatInt(u.CacheCreationTokens, 10))}
	if m.CostUSD != nil {
		s.t.inst.cost.Add(t.ctx, *m.CostUSD, metric.WithAttributes(s.attrs(attribute.String("model", model))...))
		ev = append(ev, attribute.String("cost_usd", strconv.FormatFloat(*m.CostUSD, 'f', -1, 64)))
	}
	if sessionID != s.id {
		ev = append(ev, attribute.String("subagent.session.id", sessionID))
	}
	s.logEvent(trace.ContextWithSpan(t.ctx, span), now, EventAPIRequest, ev...)
}

// Emit implements event.Sink: tool calls, permission waits, retries.
func (s *Session) Emit(e event.Event) {
	if s == nil {
		return
	}
	switch e.Type {
	case event.ToolUse, event.ToolResult, event.PermissionRequest, event.PermissionReply, event.Retry, event.Status:
	default:
		return
	}
	at := e.Time
	if at.IsZero() {
		at = time.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Type {
	case event.Status:
		if t := s.owner(e.ParentToolUseID); t != nil && e.Model != "" {
			t.model = e.Model
		}
	case event.ToolUse:
		s.toolUse(e, at)
	case event.PermissionRequest:
		parent := s.parentCtx(e.ToolUseID)
		_, span := s.t.tracer.Start(parent, SpanBlockedOnUser, trace.WithTimestamp(at), trace.WithAttributes(
			attribute.String("tool_name", e.ToolName), attribute.String("tool_use_id", e.ToolUseID)))
		s.waits[e.RequestID] = &waitSpan{span: span, toolUseID: e.ToolUseID}
	case event.PermissionReply:
		w, ok := s.waits[e.RequestID]
		if !ok {
			return
		}
		delete(s.waits, e.RequestID)
		decision, source := "accept", "user_temporary"
		switch e.Decision {
		case "allow_always":
			source = "user_permanent"
		case "deny":
			decision, source = "reject", "user_reject"
		}
		w.span.SetAttributes(attribute.String("decision", decision), attribute.String("source", source))
		w.span.End(trace.WithTimestamp(at))
		if ts, ok := s.tools[w.toolUseID]; ok && ts.decision == "" {
			s.decide(ts, w.toolUseID, decision, source, at)
		}
	case event.ToolResult:
		s.toolResult(e, at)
	case event.Retry:
		model := ""
		if t := s.owner(e.ParentToolUseID); t != nil {
			model = t.model
		}
		s.logEvent(s.parentCtx(e.ParentToolUseID), at, EventAPIError, attribute.String("model", firstSet(e.Model, model)),
			attribute.String("error", s.text(e.Error)), attribute.String("status_code", strconv.Itoa(e.HTTPStatus)),
			attribute.String("attempt", strconv.Itoa(e.Attempt)))
	}
}

func (s *Session) toolUse(e event.Event, at time.Time) {
	parent := s.parentCtx("")
	if t := s.owner(e.ParentToolUseID); t != nil {
		parent = t.ctx
	}
	attrs := []attribute.KeyValue{attribute.String("tool_name", e.ToolName), attribute.String("tool_use_id", e.ToolUseID)}
	if s.t.plan.LogToolDetails {
		attrs = append(attrs, attribute.String("tool_input", s.text(string(e.Input))))
	}
	ctx, span := s.t.tracer.Start(parent, SpanTool, trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	s.tools[e.ToolUseID] = &toolSpan{span: span, ctx: ctx, name: e.ToolName, input: e.Input, start: at, parent: e.ParentToolUseID}
}

// decide records a tool call's permission decision: the tool_decision
// event and, for the edit tools, Claude Code's decision counter.
func (s *Session) decide(ts *toolSpan, id, decision, source string, at time.Time) {
	ts.decision, ts.source = decision, source
	s.logEvent(ts.ctx, at, EventToolDecision, attribute.String("tool_name", ts.name), attribute.String("tool_use_id", id),
		attribute.String("decision", decision), attribute.String("source", source))
	if isCodeEditTool(ts.name) {
		s.t.inst.editDecisions.Add(ts.ctx, 1, metric.WithAttributes(s.attrs(attribute.String("tool_name", ts.name),
			attribute.String("decision", decision), attribute.String("source", source),
			attribute.String("language", language(filePath(ts.input))))...))
	}
}

func (s *Session) toolResult(e event.Event, at time.Time) {
	ts, ok := s.tools[e.ToolUseID]
	if !ok {
		return
	}
	delete(s.tools, e.ToolUseID)
	if ts.decision == "" {
		// Not asked: the rules decided. A refusal is the loop's
		// "Permission denied" error result.
		if e.IsError && strings.HasPrefix(e.Output, "Permission denied") {
			s.decide(ts, e.ToolUseID, "reject", "config", at)
		} else {
			s.decide(ts, e.ToolUseID, "accept", "config", at)
		}
	}
	if c, ok := s.children[e.ToolUseID]; ok {
		c.span.End(trace.WithTimestamp(at))
		delete(s.children, e.ToolUseID)
	}
	owner := s.owner(ts.parent)
	model := ""
	if owner != nil {
		owner.mark = at
		model = owner.model
	}
	ev := []attribute.KeyValue{attribute.String("tool_name", ts.name), attribute.String("tool_use_id", e.ToolUseID),
		attribute.String("success", strconv.FormatBool(!e.IsError)), attribute.String("duration_ms", strconv.FormatInt(at.Sub(ts.start).Milliseconds(), 10)),
		attribute.String("decision_type", ts.decision), attribute.String("decision_source", ts.source),
		attribute.String("tool_input_size_bytes", strconv.Itoa(len(ts.input)))}
	if e.IsError {
		ev = append(ev, attribute.String("error", s.text(e.Output)))
		ts.span.SetStatus(codes.Error, s.text(e.Output))
	}
	if s.t.plan.LogToolDetails {
		ev = append(ev, attribute.String("tool_parameters", s.text(string(ts.input))))
	}
	s.logEvent(ts.ctx, at, EventToolResult, ev...)
	ts.span.SetAttributes(attribute.Bool("success", !e.IsError))
	ts.span.End(trace.WithTimestamp(at))
	if e.IsError {
		return
	}
	if added, removed := diffLines(e.Diff); added+removed > 0 {
		s.t.inst.lines.Add(ts.ctx, added, metric.WithAttributes(s.attrs(attribute.String("type", "added"), attribute.String("model", model))...))
		s.t.inst.lines.Add(ts.ctx, removed, metric.WithAttributes(s.attrs(attribute.String("type", "removed"), attribute.String("model", model))...))
	}
	if ts.name == "Bash" {
		cmd := bashCommand(ts.input)
		if isCommit(cmd) {
			s.t.inst.commits.Add(ts.ctx, 1, metric.WithAttributes(s.attrs()...))
		}
		if isPullRequest(cmd) {
			s.t.inst.prs.Add(ts.ctx, 1, metric.WithAttributes(s.attrs()...))
		}
	}
}
