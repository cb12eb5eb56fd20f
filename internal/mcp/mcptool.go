package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandem-agent/tandem/internal/tool"
)

// maxDescription caps a tool description; some servers ship pages of text
// per tool, paid for on every model call.
const maxDescription = 2048

// mcpTool is one server tool offered to the model as mcp__server__tool.
type mcpTool struct {
	srv      *server
	name     string // model-facing
	remote   string // the server's own name
	desc     string
	schema   json.RawMessage
	readOnly bool
}

var (
	_ tool.Tool     = (*mcpTool)(nil)
	_ tool.ReadOnly = (*mcpTool)(nil)
)

func newMCPTool(srv *server, t *sdk.Tool) *mcpTool {
	desc, _ := truncate(t.Description, maxDescription)
	if desc == "" {
		desc = t.Title
	}
	return &mcpTool{
		srv: srv, name: ToolName(srv.name, t.Name), remote: t.Name, desc: desc,
		schema:   inputSchema(t.InputSchema),
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
	}
}

// inputSchema marshals the server's schema; providers insist on an object
// schema, so a missing or typeless one becomes {"type":"object"}.
func inputSchema(s any) json.RawMessage {
	var m map[string]any
	if b, err := json.Marshal(s); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok && m["type"] == "object" {
		m["properties"] = map[string]any{}
	}
	b, _ := json.Marshal(m)
	return b
}

func (t *mcpTool) Name() string            { return t.name }
func (t *mcpTool) Description() string     { return t.desc }
func (t *mcpTool) Schema() json.RawMessage { return t.schema }

// ReadOnly is the server's readOnlyHint: explore mode allows only these.
func (t *mcpTool) ReadOnly() bool { return t.readOnly }

// Server and RemoteName identify the tool on its server (for UIs and logs).
func (t *mcpTool) Server() string     { return t.srv.name }
func (t *mcpTool) RemoteName() string { return t.remote }

// Execute calls the tool on the server with the entry's per-call timeout.
func (t *mcpTool) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	args := map[string]any{}
	if in := strings.TrimSpace(string(call.Input)); in != "" && in != "null" {
		if err := json.Unmarshal(call.Input, &args); err != nil {
			return tool.ErrorResult(fmt.Sprintf("input for %s must be a JSON object: %v", t.name, err)), nil
		}
	}
	token, release := t.srv.progress.open(call, t.name)
	defer release()
	res := t.srv.callTool(ctx, t.remote, args, token)
	if t.srv.m.opts.Confine != nil && t.srv.config().TransportType() == TypeStdio {
		// The server runs in the session's sandbox: what it was refused
		// shows in its error text (EACCES and a path).
		for _, msg := range tool.ReportDenials(call.Env, call.ID, t.name, res.Content, t.srv.m.opts.WorkDir) {
			res.Content += "\n[sandbox] " + msg
		}
	}
	return res, nil
}

// callTool runs one call and turns every failure into a result the model
// can read: not connected, timed out, server died mid-call, server error.
func (s *server) callTool(ctx context.Context, name string, args map[string]any, progressToken string) tool.Result {
	sess, st := s.current()
	if sess == nil {
		return tool.ErrorResult(s.unavailable(st))
	}
	limit := s.config().CallTimeout()
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	if progressToken != "" {
		params.SetProgressToken(progressToken)
	}
	res, err := sess.cs.CallTool(cctx, params)
	switch {
	case err == nil:
		r := convertResult(res)
		if r.Meta == nil {
			r.Meta = map[string]any{}
		}
		r.Meta["mcp_server"] = s.name
		r.Meta["mcp_tool"] = name
		return r
	case ctx.Err() != nil:
		return tool.ErrorResult(fmt.Sprintf("call to %s on mcp server %s was interrupted", name, s.name))
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tool.Result{IsError: true, Timeout: true, Content: fmt.Sprintf(
			"mcp server %s: tool %s did not answer within %s and was cancelled (raise \"timeout\" in the server's config if it needs longer)",
			s.name, name, limit.Round(time.Second))}
	case errors.As(err, new(*NeedsAuthError)):
		// A step-up (insufficient_scope) or a revoked sign-in: the message
		// names the fix, never the token.
		var na *NeedsAuthError
		errors.As(err, &na)
		r := tool.ErrorResult(na.Error())
		r.Meta = map[string]any{"mcp_server": s.name, "needs_auth": true}
		return r
	case s.sessionLost(sess, err):
		s.noteDropped(sess)
		return tool.ErrorResult(s.crashMessage(name, time.Since(start)))
	default:
		return tool.ErrorResult(fmt.Sprintf("mcp server %s: tool %s failed: %v", s.name, name, err))
	}
}

// sessionLost tells a dead connection from an ordinary error reply.
func (s *server) sessionLost(sess *session, err error) bool {
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing) {
		return true
	}
	select {
	case <-sess.done:
		return true
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

func (s *server) crashMessage(tool string, after time.Duration) string {
	msg := fmt.Sprintf("mcp server %s stopped while running %s (connection lost after %s); tandem is restarting it, so the call can be retried shortly",
		s.name, tool, after.Round(time.Millisecond))
	if tail := s.stderr.Tail(10); tail != "" {
		msg += "\nserver stderr (last lines):\n" + tail
	}
	return msg
}

func (s *server) unavailable(st ServerStatus) string {
	msg := fmt.Sprintf("mcp server %s is not connected (state: %s)", s.name, st.State)
	if st.Error != "" {
		msg += ": " + st.Error
	}
	return msg
}
