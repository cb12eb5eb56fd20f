package claudecode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permit"
	"github.com/tandem-agent/tandem/internal/tool"
)

// preToolUseHookID is the callback id of the PreToolUse hook registered at
// initialize; it sends every tool call to the Checker.
const preToolUseHookID = "tandem_pre_tool_use"

// postToolUseHookID is the PostToolUse callback registered when an
// Observer wants to hear that a call finished (rewind checkpoints).
const postToolUseHookID = "tandem_post_tool_use"

// ToolObserver hears of each tool call the CLI runs: before it runs (once
// tandem allowed it) and after it finished. The checkpoint recorder uses it
// to save files' prior content, as it does around the native runtime's tools.
type ToolObserver interface {
	BeforeTool(ctx context.Context, name string, input json.RawMessage)
	AfterTool(ctx context.Context, name string, input json.RawMessage)
}

// controlRequest is the envelope both sides use for requests.
type controlRequest struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Request   any    `json:"request"`
}

// controlResponse nests the request id inside "response" (the protocol's
// asymmetry: requests carry it at the top level).
type controlResponse struct {
	Type     string       `json:"type"`
	Response responseBody `json:"response"`
}

type responseBody struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Response  any    `json:"response,omitempty"`
	Error     string `json:"error,omitempty"`
}

// incoming is the part of a CLI request the handlers read.
type incoming struct {
	Subtype    string          `json:"subtype"`
	ToolName   string          `json:"tool_name"`
	Input      json.RawMessage `json:"input"`
	ToolUseID  string          `json:"tool_use_id"`
	CallbackID string          `json:"callback_id"`
}

// hookInput is the PreToolUse hook's input.
type hookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolUseID     string          `json:"tool_use_id"`
}

// controller speaks the control protocol over one proc: it matches
// responses to the requests tandem sent and answers the CLI's requests.
type controller struct {
	p       *proc
	checker permission.Checker
	hooks   HookForwarder
	tools   *tool.Registry
	session string
	cwd     string
	log     func(string)
	// base is the parent of every handler's context (the turn's).
	base context.Context

	mu        sync.Mutex
	next      int
	pending   map[string]chan responseBody
	inflight  map[string]context.CancelCauseFunc
	decisions map[string]permission.Decision // by tool_use_id: never ask twice for one call
	wg        sync.WaitGroup
	// observer, when set, hears of allowed calls and finished ones.
	observer ToolObserver
	observed map[string]bool // tool_use_ids already reported as starting
	// mcpRO: the CLI's MCP tools and whether each is read-only (nil until
	// first needed; mcpreadonly.go).
	mcpRO map[string]bool
}

func newController(p *proc, checker permission.Checker, tools *tool.Registry, session, cwd string, log func(string)) *controller {
	return &controller{
		p: p, checker: checker, tools: tools, session: session, cwd: cwd, log: log,
		pending: map[string]chan responseBody{}, inflight: map[string]context.CancelCauseFunc{},
		decisions: map[string]permission.Decision{},
	}
}

func newRequestID(n int) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("req_%d_%s", n, hex.EncodeToString(b[:]))
}

// request sends a host request and waits for its response.
func (c *controller) request(ctx context.Context, body map[string]any) (json.RawMessage, error) {
	c.mu.Lock()
	c.next++
	id := newRequestID(c.next)
	ch := make(chan responseBody, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	if err := c.p.send(controlRequest{Type: "control_request", RequestID: id, Request: body}); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Subtype == "error" {
			return nil, fmt.Errorf("claude %v: %s", body["subtype"], r.Error)
		}
		raw, _ := json.Marshal(r.Response)
		return raw, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("claude %v: %w", body["subtype"], ctx.Err())
	}
}

// handle routes a control message; it reports false for other messages.
func (c *controller) handle(m Msg) bool {
	switch m.Type {
	case "control_response":
		var r struct {
			Subtype   string          `json:"subtype"`
			RequestID string          `json:"request_id"`
			Response  json.RawMessage `json:"response"`
			Error     string          `json:"error"`
		}
		if err := json.Unmarshal(m.Response, &r); err != nil {
			c.log("claude-code: bad control_response: " + err.Error())
			return true
		}
		c.mu.Lock()
		ch := c.pending[r.RequestID]
		c.mu.Unlock()
		if ch != nil {
			ch <- responseBody{Subtype: r.Subtype, RequestID: r.RequestID, Response: r.Response, Error: r.Error}
		}
		return true
	case "control_request":
		c.serve(m)
		return true
	case "control_cancel_request":
		c.mu.Lock()
		cancel := c.inflight[m.RequestID]
		c.mu.Unlock()
		if cancel != nil {
			cancel(errCancelledByCLI)
		}
		return true
	case "keep_alive":
		return true
	}
	return false
}

// serve answers one CLI request in its own goroutine: a permission check
// may wait for the user for minutes while the stream goes on.
func (c *controller) serve(m Msg) {
	var req incoming
	if err := json.Unmarshal(m.Request, &req); err != nil {
		c.reply(m.RequestID, nil, fmt.Errorf("bad request: %w", err))
		return
	}
	base := c.base
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancelCause(base)
	c.mu.Lock()
	c.inflight[m.RequestID] = cancel
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			delete(c.inflight, m.RequestID)
			c.mu.Unlock()
			cancel(nil)
		}()
		resp, err := c.answer(ctx, req)
		if errors.Is(context.Cause(ctx), errCancelledByCLI) {
			return // the CLI abandoned the request and wants no reply
		}
		if cause := context.Cause(ctx); cause != nil && err == nil {
			err = cause
		}
		c.reply(m.RequestID, resp, err)
	}()
}

func (c *controller) answer(ctx context.Context, req incoming) (any, error) {
	c.log("claude-code: control request " + req.Subtype + " " + req.ToolName + req.CallbackID)
	switch req.Subtype {
	case "can_use_tool":
		d, err := c.decide(ctx, req.ToolUseID, req.ToolName, req.Input)
		if err != nil {
			return nil, err
		}
		c.observeStart(ctx, req.ToolUseID, req.ToolName, req.Input, d)
		return permissionReply(d, req.Input), nil
	case "hook_callback":
		if req.CallbackID == postToolUseHookID {
			return c.observeEnd(ctx, req.Input)
		}
		if _, ok := forwardedEvent(req.CallbackID); ok {
			return c.forward(ctx, req.CallbackID, req.Input)
		}
		if req.CallbackID != preToolUseHookID {
			return nil, fmt.Errorf("unknown hook callback %q", req.CallbackID)
		}
		var in hookInput
		if err := json.Unmarshal(req.Input, &in); err != nil {
			return nil, fmt.Errorf("bad hook input: %w", err)
		}
		if in.HookEventName != "" && in.HookEventName != "PreToolUse" {
			return map[string]any{}, nil
		}
		id := in.ToolUseID
		if id == "" {
			id = req.ToolUseID
		}
		d, err := c.decide(ctx, id, in.ToolName, in.ToolInput)
		if err != nil {
			return nil, err
		}
		c.observeStart(ctx, id, in.ToolName, in.ToolInput, d)
		return hookReply(d), nil
	}
	return nil, fmt.Errorf("unsupported control request subtype %q", req.Subtype)
}

// decide asks the Checker once per tool call.
func (c *controller) decide(ctx context.Context, toolUseID, name string, input json.RawMessage) (permission.Decision, error) {
	if toolUseID != "" {
		c.mu.Lock()
		d, ok := c.decisions[toolUseID]
		c.mu.Unlock()
		if ok {
			return d, nil
		}
	}
	if c.checker == nil {
		// Failing closed: without a Checker nothing may run unjudged.
		return permission.Decision{Behavior: permission.Deny, Message: "tandem has no permission checker for this turn"}, nil
	}
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	d, err := c.checker.Check(ctx, permission.Request{
		SessionID: c.session, ToolUseID: toolUseID, Tool: name, Input: input, Cwd: c.cwd,
		ReadOnly: c.readOnly(name) || c.mcpReadOnly(ctx, name), Interaction: c.interaction(name),
	})
	if err != nil {
		return permission.Decision{}, fmt.Errorf("permission check for %s: %w", name, err)
	}
	if d.Behavior == permission.Allow && name == "Bash" {
		base := d.UpdatedInput
		if len(base) == 0 {
			base = input
		}
		if u, ok := withoutCLICredentials(base, os.Environ()); ok {
			d.UpdatedInput = u
		}
	}
	if toolUseID != "" {
		c.mu.Lock()
		c.decisions[toolUseID] = d
		c.mu.Unlock()
	}
	return d, nil
}

// readOnly reports whether the named tool declares that it changes
// nothing: the session's tools, then the CLI's own (CLITool).
func (c *controller) readOnly(name string) bool {
	t, ok := c.tools.Lookup().Then(CLITool).Find(name)
	return ok && tool.IsReadOnly(t)
}

// interaction is what the named tool puts to the user (the CLI's
// ExitPlanMode and AskUserQuestion): such a call is asked through the
// permission broker as a plan or a question, as under the native runtime.
func (c *controller) interaction(name string) permit.Interaction {
	if t, ok := c.tools.Lookup().Then(CLITool).Find(name); ok {
		return tool.InteractionOf(t)
	}
	return ""
}

func permissionReply(d permission.Decision, input json.RawMessage) map[string]any {
	if d.Behavior == permission.Allow {
		in := d.UpdatedInput
		if len(in) == 0 {
			in = input
		}
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		return map[string]any{"behavior": "allow", "updatedInput": in}
	}
	out := map[string]any{"behavior": "deny", "message": denialMessage(d)}
	if d.Interrupt {
		out["interrupt"] = true
	}
	return out
}

func hookReply(d permission.Decision) map[string]any {
	out := map[string]any{"hookEventName": "PreToolUse"}
	if d.Behavior == permission.Allow {
		out["permissionDecision"] = "allow"
		out["permissionDecisionReason"] = "allowed by tandem (" + d.Rule + ")"
		if len(d.UpdatedInput) > 0 {
			out["updatedInput"] = d.UpdatedInput
		}
	} else {
		out["permissionDecision"] = "deny"
		out["permissionDecisionReason"] = denialMessage(d)
	}
	if d.Interrupt {
		return map[string]any{"hookSpecificOutput": out, "continue": false, "stopReason": denialMessage(d)}
	}
	return map[string]any{"hookSpecificOutput": out}
}

func denialMessage(d permission.Decision) string {
	if d.Message != "" {
		return d.Message
	}
	return "denied by tandem's permission rules"
}

// reply sends a success or error response; the CLI must never be left
// waiting.
func (c *controller) reply(id string, resp any, err error) {
	body := responseBody{Subtype: "success", RequestID: id, Response: resp}
	if err != nil {
		body = responseBody{Subtype: "error", RequestID: id, Error: err.Error()}
	}
	if resp == nil && err == nil {
		body.Response = map[string]any{}
	}
	if serr := c.p.send(controlResponse{Type: "control_response", Response: body}); serr != nil {
		c.log("claude-code: cannot answer control request " + id + ": " + serr.Error())
	}
}

// errCancelledByCLI marks handlers the CLI cancelled itself.
var errCancelledByCLI = errors.New("cancelled by claude")

// cancelAll stops the handlers still waiting (an interrupt, or the turn is
// over); they answer with an error so the CLI is not left waiting.
func (c *controller) cancelAll(cause error) {
	c.mu.Lock()
	for _, cancel := range c.inflight {
		cancel(cause)
	}
	c.mu.Unlock()
}

// observeStart tells the observer an allowed call is about to run, once
// per call (the hook and can_use_tool may both ask about it).
func (c *controller) observeStart(ctx context.Context, id, name string, input json.RawMessage, d permission.Decision) {
	if c.observer == nil || d.Behavior != permission.Allow {
		return
	}
	if id != "" {
		c.mu.Lock()
		seen := c.observed[id]
		if c.observed == nil {
			c.observed = map[string]bool{}
		}
		c.observed[id] = true
		c.mu.Unlock()
		if seen {
			return
		}
	}
	if len(d.UpdatedInput) > 0 {
		input = d.UpdatedInput
	}
	c.observer.BeforeTool(context.WithoutCancel(ctx), name, input)
}

// observeEnd answers the PostToolUse callback.
func (c *controller) observeEnd(ctx context.Context, raw json.RawMessage) (any, error) {
	var in hookInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("bad hook input: %w", err)
	}
	if c.observer != nil {
		c.observer.AfterTool(context.WithoutCancel(ctx), in.ToolName, in.ToolInput)
	}
	return map[string]any{}, nil
}

// initializeRequest registers the PreToolUse hook that routes every tool
// call to the Checker, with post the PostToolUse hook that reports
// finished calls to the observer, and a callback for each event tandem's
// hooks handle; agents are tandem's config-defined ones.
func initializeRequest(post bool, agents map[string]any, f HookForwarder) map[string]any {
	hooks := hookRegistrations(f)
	if post {
		entry := map[string]any{"matcher": nil, "hookCallbackIds": []string{postToolUseHookID}}
		prev, _ := hooks["PostToolUse"].([]map[string]any)
		hooks["PostToolUse"] = append([]map[string]any{entry}, prev...)
	}
	req := map[string]any{"subtype": "initialize", "hooks": hooks}
	if len(agents) > 0 {
		req["agents"] = agents
	}
	return req
}
