package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/provider"
)

// hookAdapter fires the session's hooks at the moments the runtimes,
// compaction, sub-agents and the session itself own (PreToolUse,
// PermissionRequest and Notification fire inside the permission engine).
// It is shared by both runtimes of a session.
type hookAdapter struct {
	r    *hooks.Runner
	mode func() string
	emit func(event.Event)
	// pending is SessionStart context waiting for the next prompt: the
	// model reads it with that prompt, under either runtime.
	pending *pendingContext
	// endBudget bounds all SessionEnd hooks together: closing a session
	// (and exiting) must not wait for them long.
	endBudget time.Duration
	// title names the session (a hook's sessionTitle); nil: titles are
	// not set.
	title func(ctx context.Context, title string) error
}

// sessionEndBudget is Claude Code's default time for SessionEnd hooks;
// CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS changes it, as there.
const sessionEndBudget = 1500 * time.Millisecond

func newHookAdapter(r *hooks.Runner, mode func() string, emit func(event.Event), getenv func(string) string) hookAdapter {
	if emit == nil {
		emit = func(event.Event) {}
	}
	h := hookAdapter{r: r, mode: mode, emit: emit, pending: &pendingContext{}, endBudget: sessionEndBudget}
	// An async hook's context reaches the model with the next prompt, its
	// message the user now (Claude Code delivers them on the next turn).
	r.SetAsyncSink(func(in hooks.Input, out hooks.Outcome) {
		h.pending.add(out.AdditionalContext)
		h.show(in.HookEventName, out)
		if err := joinErr(nil, out.Errors); err != nil {
			h.emit(event.Event{Type: event.Error, Error: in.HookEventName + " hook (async): " + err.Error()})
		}
	})
	if getenv != nil {
		if ms, err := strconv.Atoi(getenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS")); err == nil && ms > 0 {
			h.endBudget = time.Duration(ms) * time.Millisecond
		}
	}
	return h
}

type pendingContext struct {
	mu   sync.Mutex
	text []string
}

func (p *pendingContext) add(s string) {
	if s == "" {
		return
	}
	p.mu.Lock()
	p.text = append(p.text, s)
	p.mu.Unlock()
}

func (p *pendingContext) take() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := strings.Join(p.text, "\n")
	p.text = nil
	return s
}

func (h hookAdapter) input(event, sessionID, cwd string) hooks.Input {
	return hooks.Input{HookEventName: event, SessionID: sessionID, Cwd: cwd, PermissionMode: h.mode()}
}

// run fires one event, shows a hook's systemMessage to the user and
// applies a sessionTitle.
func (h hookAdapter) run(ctx context.Context, in hooks.Input) (hooks.Outcome, error) {
	out, err := h.r.Run(ctx, in)
	h.show(in.HookEventName, out)
	if out.SessionTitle != "" && h.title != nil {
		if terr := h.title(context.WithoutCancel(ctx), out.SessionTitle); terr != nil {
			h.emit(event.Event{Type: event.Error, Error: in.HookEventName + " hook: sessionTitle: " + terr.Error()})
		}
	}
	return out, joinErr(err, out.Errors)
}

// show tells the user a hook's systemMessage.
func (h hookAdapter) show(ev string, out hooks.Outcome) {
	if out.SystemMessage != "" {
		h.emit(event.Event{Type: event.Status, Message: ev + " hook: " + out.SystemMessage})
	}
}

func (h hookAdapter) UserPromptSubmit(ctx context.Context, sessionID, cwd, prompt string) (string, string, error) {
	in := h.input(hooks.UserPromptSubmit, sessionID, cwd)
	in.Prompt = prompt
	out, err := h.run(ctx, in)
	if out.Decision == hooks.DecisionDeny || out.Stop {
		return firstNonEmpty(out.Reason, out.StopReason, "blocked"), "", err
	}
	return "", joinText(h.pending.take(), out.AdditionalContext), err
}

func (h hookAdapter) PostToolUse(ctx context.Context, sessionID, cwd, toolName, toolUseID string, input []byte, result string) (string, *string, error) {
	in := h.input(hooks.PostToolUse, sessionID, cwd)
	resp, _ := json.Marshal(map[string]string{"output": result})
	in.ToolName, in.ToolUseID, in.ToolInput, in.ToolResponse = toolName, toolUseID, input, resp
	out, err := h.run(ctx, in)
	fb := out.AdditionalContext
	if out.Decision == hooks.DecisionDeny {
		fb = joinText(firstNonEmpty(out.Reason, "a PostToolUse hook objected"), out.AdditionalContext)
	}
	return fb, toolOutputText(out.UpdatedToolOutput), stopOr(out, err)
}

// toolOutputText is an updatedToolOutput as the text the model reads: a
// JSON string is the text itself, {"output": text} (tandem's own
// tool_response shape) its text, anything else its JSON; nil when absent.
func toolOutputText(raw json.RawMessage) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return &s
	}
	var obj struct {
		Output *string `json:"output"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Output != nil {
		return obj.Output
	}
	s = string(raw)
	return &s
}

// PostToolBatch runs once after all calls of a step; what it returns is
// added to the results the model reads next.
func (h hookAdapter) PostToolBatch(ctx context.Context, sessionID, cwd string, calls []agent.BatchCall) (string, error) {
	if !h.r.Has(hooks.PostToolBatch) {
		return "", nil
	}
	in := h.input(hooks.PostToolBatch, sessionID, cwd)
	for _, c := range calls {
		resp, _ := json.Marshal(map[string]any{"output": c.Output, "is_error": c.IsError})
		in.ToolCalls = append(in.ToolCalls, hooks.ToolCall{ToolName: c.Name, ToolInput: c.Input, ToolUseID: c.ID, ToolResponse: resp})
	}
	out, err := h.run(ctx, in)
	fb := out.AdditionalContext
	if out.Decision == hooks.DecisionDeny {
		fb = joinText(firstNonEmpty(out.Reason, "a PostToolBatch hook objected"), out.AdditionalContext)
	}
	return fb, stopOr(out, err)
}

// StopFailure runs when a turn ends because the model call failed; error
// is Claude Code's kind of failure, error_details the provider's message.
func (h hookAdapter) StopFailure(ctx context.Context, sessionID, cwd string, cause error, lastMessage string) error {
	if !h.r.Has(hooks.StopFailure) {
		return nil
	}
	in := h.input(hooks.StopFailure, sessionID, cwd)
	in.Error, in.ErrorDetails, in.LastAssistantMessage = failureKind(cause), cause.Error(), lastMessage
	_, err := h.run(context.WithoutCancel(ctx), in)
	return err
}

// failureKind names a failed model call as Claude Code's StopFailure does.
func failureKind(err error) string {
	pe, ok := provider.AsError(err)
	switch {
	case !ok:
		return hooks.FailUnknown
	case pe.Auth:
		return hooks.FailAuthentication
	case pe.Status == 402:
		return hooks.FailBilling
	case pe.Status == 429:
		return hooks.FailRateLimit
	case pe.Status == 529:
		return hooks.FailOverloaded
	case pe.Status == 404:
		return hooks.FailModelNotFound
	case pe.Status == 400 || pe.Status == 413 || pe.Status == 422:
		return hooks.FailInvalidRequest
	case pe.Status >= 500:
		return hooks.FailServer
	}
	return hooks.FailUnknown
}

// stopOr turns a hook's "continue": false into the loop's StopTurn.
func stopOr(out hooks.Outcome, err error) error {
	if out.Stop {
		return &agent.StopTurn{Reason: firstNonEmpty(out.StopReason, "no reason given")}
	}
	return err
}

// PostToolUseFailure runs after a tool call failed; what it returns is
// added to the error the model reads.
func (h hookAdapter) PostToolUseFailure(ctx context.Context, sessionID, cwd, toolName, toolUseID string, input []byte, errText string, interrupted bool) (string, error) {
	in := h.input(hooks.PostToolUseFailure, sessionID, cwd)
	in.ToolName, in.ToolUseID, in.ToolInput, in.Error, in.IsInterrupt = toolName, toolUseID, input, errText, interrupted
	out, err := h.run(ctx, in)
	fb := out.AdditionalContext
	if out.Decision == hooks.DecisionDeny {
		fb = joinText(out.Reason, out.AdditionalContext)
	}
	return fb, stopOr(out, err)
}

func (h hookAdapter) Stop(ctx context.Context, sessionID, cwd string, active bool, lastMessage string) (string, error) {
	in := h.input(hooks.Stop, sessionID, cwd)
	in.StopHookActive, in.LastAssistantMessage = active, lastMessage
	out, err := h.run(ctx, in)
	if out.Decision == hooks.DecisionDeny && !out.Stop {
		// Claude Code semantics: "block" on Stop means keep going, with the reason as the next instruction.
		return firstNonEmpty(out.Reason, "A Stop hook asked you to continue."), err
	}
	return "", err
}

// SessionStart runs when a session opens (source "startup" or "resume")
// or after compaction ("compact"); its context reaches the model with the
// next prompt.
func (h hookAdapter) SessionStart(ctx context.Context, sessionID, cwd, source, model string) error {
	in := h.input(hooks.SessionStart, sessionID, cwd)
	in.Source, in.Model = source, model
	out, err := h.run(ctx, in)
	h.pending.add(out.AdditionalContext)
	return err
}

// Notification runs Notification hooks (they cannot change anything).
func (h hookAdapter) Notification(ctx context.Context, sessionID, cwd, kind, title, msg string) error {
	in := h.input(hooks.Notification, sessionID, cwd)
	in.NotificationType, in.Title, in.Message = kind, title, msg
	_, err := h.run(ctx, in)
	return err
}

// SessionEnd runs when a session closes in this process, within endBudget.
func (h hookAdapter) SessionEnd(ctx context.Context, sessionID, cwd, reason string) error {
	ctx, cancel := context.WithTimeout(ctx, h.endBudget)
	defer cancel()
	in := h.input(hooks.SessionEnd, sessionID, cwd)
	in.Reason = reason
	_, err := h.run(ctx, in)
	return err
}

// PreCompact runs before the conversation is compacted (trigger "manual"
// or "auto"); a non-empty block says why compaction must not happen.
func (h hookAdapter) PreCompact(ctx context.Context, sessionID, cwd, trigger, customInstructions string) (block string, err error) {
	in := h.input(hooks.PreCompact, sessionID, cwd)
	in.Trigger, in.CustomInstructions = claudeTrigger(trigger), customInstructions
	out, err := h.run(ctx, in)
	if out.Decision == hooks.DecisionDeny || out.Stop {
		return firstNonEmpty(out.Reason, out.StopReason, "a PreCompact hook blocked compaction"), err
	}
	return "", err
}

// PostCompact runs after compaction with its summary; then, as in Claude
// Code, SessionStart runs with source "compact" so hooks can restore
// context the summary lost.
func (h hookAdapter) PostCompact(ctx context.Context, sessionID, cwd, trigger, summary string) error {
	in := h.input(hooks.PostCompact, sessionID, cwd)
	in.Trigger, in.CompactSummary = claudeTrigger(trigger), summary
	_, err := h.run(ctx, in)
	if serr := h.SessionStart(ctx, sessionID, cwd, hooks.SourceCompact, ""); err == nil {
		err = serr
	}
	return err
}

// PreModelSwitch runs before the session's model changes; a deny (or an
// ask: nobody is asked about a model switch) refuses the switch with its
// reason.
func (h hookAdapter) PreModelSwitch(ctx context.Context, sessionID, cwd, from, to string) error {
	if !h.r.Has(hooks.PreModelSwitch) {
		return nil
	}
	in := h.modelSwitch(hooks.PreModelSwitch, sessionID, cwd, from, to)
	out, err := h.run(ctx, in)
	if err != nil {
		h.emit(event.Event{Type: event.Error, Error: "PreModelSwitch hook: " + err.Error()})
	}
	if out.Decision == hooks.DecisionDeny || out.Decision == hooks.DecisionAsk || out.Stop {
		return fmt.Errorf("a PreModelSwitch hook refused the switch to %s: %s", to, firstNonEmpty(out.Reason, out.StopReason, "no reason given"))
	}
	return nil
}

// PostModelSwitch runs after the model changed; its context reaches the
// new model with the next prompt.
func (h hookAdapter) PostModelSwitch(ctx context.Context, sessionID, cwd, from, to string) error {
	if !h.r.Has(hooks.PostModelSwitch) {
		return nil
	}
	out, err := h.run(ctx, h.modelSwitch(hooks.PostModelSwitch, sessionID, cwd, from, to))
	h.pending.add(out.AdditionalContext)
	return err
}

func (h hookAdapter) modelSwitch(ev, sessionID, cwd, from, to string) hooks.Input {
	in := h.input(ev, sessionID, cwd)
	in.FromModel, in.ToModel, in.RequestedModel, in.Source = from, to, &to, hooks.SourceCommand
	return in
}

// claudeTrigger maps tandem's compaction triggers onto Claude Code's two:
// a compaction after the provider refused an oversized request
// ("overflow") is automatic too.
func claudeTrigger(t string) string {
	if t == "overflow" {
		return "auto"
	}
	return t
}

// SubagentStart runs when a sub-agent starts; the context it returns is
// for the sub-agent's model.
func (h hookAdapter) SubagentStart(ctx context.Context, sessionID, cwd, agentID, agentType string) (additionalContext string, err error) {
	in := h.input(hooks.SubagentStart, sessionID, cwd)
	in.AgentID, in.AgentType = agentID, agentType
	out, err := h.run(ctx, in)
	return out.AdditionalContext, err
}

// SubagentStop runs when a sub-agent would finish; a non-empty reason
// means keep it going with that instruction.
func (h hookAdapter) SubagentStop(ctx context.Context, sessionID, cwd, agentID, agentType, lastMessage string) (continueReason string, err error) {
	in := h.input(hooks.SubagentStop, sessionID, cwd)
	in.AgentID, in.AgentType, in.LastAssistantMessage = agentID, agentType, lastMessage
	out, err := h.run(ctx, in)
	if out.Decision == hooks.DecisionDeny && !out.Stop {
		return firstNonEmpty(out.Reason, "A SubagentStop hook asked you to continue."), err
	}
	return "", err
}

func joinText(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

type hookErrors []string

func (h hookErrors) Error() string { return strings.Join(h, "; ") }

func joinErr(err error, errs []string) error {
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return hookErrors(errs)
	}
	return nil
}

// cliEvents are the events the Claude Code CLI reports to tandem through
// hook callbacks (the claude-code runtime).
func cliEvents() []string {
	return []string{hooks.UserPromptSubmit, hooks.PostToolUse, hooks.PostToolUseFailure, hooks.PostToolBatch, hooks.Stop,
		hooks.StopFailure, hooks.SubagentStart, hooks.SubagentStop, hooks.PreCompact, hooks.PostCompact}
}

// CLIEvents implements claudecode.HookForwarder: the events with hooks,
// and UserPromptSubmit whenever SessionStart context may wait for it.
func (h hookAdapter) CLIEvents() []string {
	var out []string
	for _, ev := range cliEvents() {
		if h.r.Has(ev) || (ev == hooks.UserPromptSubmit && h.r.Has(hooks.SessionStart)) {
			out = append(out, ev)
		}
	}
	return out
}

// Forward implements claudecode.HookForwarder: the CLI's hook input, with
// tandem's session id and mode, goes to the same hooks the native runtime
// runs; pending SessionStart context joins the first prompt's.
func (h hookAdapter) Forward(ctx context.Context, sessionID, ev string, input json.RawMessage) (map[string]any, error) {
	var in hooks.Input
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("decode %s hook input: %w", ev, err)
	}
	in.HookEventName, in.SessionID, in.PermissionMode, in.TranscriptPath = ev, sessionID, h.mode(), ""
	out, err := h.run(ctx, in)
	if err != nil {
		h.emit(event.Event{Type: event.Error, Error: ev + " hook: " + err.Error()})
	}
	if ev == hooks.UserPromptSubmit && out.Decision != hooks.DecisionDeny && !out.Stop {
		out.AdditionalContext = joinText(h.pending.take(), out.AdditionalContext)
	}
	if ev == hooks.PostCompact {
		if err := h.SessionStart(ctx, sessionID, in.Cwd, hooks.SourceCompact, ""); err != nil {
			h.emit(event.Event{Type: event.Error, Error: "SessionStart hook: " + err.Error()})
		}
	}
	return out.ClaudeOutput(ev), nil
}
