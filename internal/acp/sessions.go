package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// Initialize answers the handshake with what tandem can do.
func (ag *Agent) Initialize(ctx context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	ag.mu.Lock()
	ag.client = p.ClientCapabilities
	ag.mu.Unlock()
	return acpsdk.InitializeResponse{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		AgentInfo:       &acpsdk.Implementation{Name: "tandem", Title: acpsdk.Ptr("tandem"), Version: ag.version},
		AgentCapabilities: acpsdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acpsdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    acpsdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: acpsdk.SessionCapabilities{
				List:   &acpsdk.SessionListCapabilities{},
				Resume: &acpsdk.SessionResumeCapabilities{},
				Close:  &acpsdk.SessionCloseCapabilities{},
			},
		},
		// Provider keys come from the environment or tandem's config, as for
		// every other way in; there is no login step.
		AuthMethods: []acpsdk.AuthMethod{},
	}, nil
}

// Authenticate is never needed: see AuthMethods.
func (ag *Agent) Authenticate(ctx context.Context, p acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, nil
}

// NewSession creates a stored session in cwd with the client's MCP servers.
func (ag *Agent) NewSession(ctx context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	s, err := ag.open(ctx, openArgs{cwd: p.Cwd, addDirs: p.AdditionalDirectories, mcp: p.McpServers})
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	st := ag.state(s)
	ag.announce(ctx, s)
	return acpsdk.NewSessionResponse{SessionId: acpsdk.SessionId(s.live.ID()), Modes: st.modes, Models: st.models, ConfigOptions: st.options}, nil
}

// LoadSession reopens a stored session and replays its conversation as
// session/update notifications before answering, as the protocol asks.
func (ag *Agent) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	s, err := ag.open(ctx, openArgs{id: string(p.SessionId), cwd: p.Cwd, addDirs: p.AdditionalDirectories, mcp: p.McpServers})
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	if err := ag.replay(ctx, s); err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	st := ag.state(s)
	ag.announce(ctx, s)
	return acpsdk.LoadSessionResponse{Modes: st.modes, Models: st.models, ConfigOptions: st.options}, nil
}

// ResumeSession reopens a stored session without replaying it.
func (ag *Agent) ResumeSession(ctx context.Context, p acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	s, err := ag.open(ctx, openArgs{id: string(p.SessionId), cwd: p.Cwd, addDirs: p.AdditionalDirectories, mcp: p.McpServers})
	if err != nil {
		return acpsdk.ResumeSessionResponse{}, err
	}
	st := ag.state(s)
	ag.announce(ctx, s)
	return acpsdk.ResumeSessionResponse{Modes: st.modes, Models: st.models, ConfigOptions: st.options}, nil
}

// CloseSession ends the session in this process; the stored session stays.
func (ag *Agent) CloseSession(ctx context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	ag.mu.Lock()
	s, ok := ag.sessions[string(p.SessionId)]
	delete(ag.sessions, string(p.SessionId))
	ag.mu.Unlock()
	if ok {
		s.turns.cancelRunning()
		s.live.Close()
	}
	return acpsdk.CloseSessionResponse{}, nil
}

// ListSessions lists stored top-level sessions, newest first, optionally of
// one folder, 50 a page.
func (ag *Agent) ListSessions(ctx context.Context, p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	const page = 50
	opt := session.ListOptions{Limit: page + 1}
	if p.Cwd != nil && *p.Cwd != "" {
		cwd, err := session.ResolveDir(*p.Cwd)
		if err != nil {
			return acpsdk.ListSessionsResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd: %v", err)})
		}
		opt.Cwd = cwd
	}
	if p.Cursor != nil && *p.Cursor != "" {
		if _, err := fmt.Sscanf(*p.Cursor, "%d", &opt.Offset); err != nil || opt.Offset < 0 {
			return acpsdk.ListSessionsResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": "cursor: pass back the nextCursor of an earlier answer"})
		}
	}
	recs, err := ag.app.Manager.List(ctx, opt)
	if err != nil {
		return acpsdk.ListSessionsResponse{}, fmt.Errorf("list sessions: %w", err)
	}
	out := acpsdk.ListSessionsResponse{Sessions: []acpsdk.SessionInfo{}}
	for i, r := range recs {
		if i == page {
			out.NextCursor = acpsdk.Ptr(fmt.Sprint(opt.Offset + page))
			break
		}
		if r.ParentID != "" {
			continue
		}
		info := acpsdk.SessionInfo{SessionId: acpsdk.SessionId(r.ID), Cwd: r.Cwd, UpdatedAt: acpsdk.Ptr(r.UpdatedAt.UTC().Format(time.RFC3339))}
		if r.Title != "" {
			info.Title = acpsdk.Ptr(r.Title)
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

type openArgs struct {
	id      string // empty: a new session
	cwd     string
	addDirs []string
	mcp     []acpsdk.McpServer
}

// open opens (or reuses) a live session and registers it.
func (ag *Agent) open(ctx context.Context, a openArgs) (*liveSession, error) {
	if !filepath.IsAbs(a.cwd) {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q must be an absolute path", a.cwd)})
	}
	if a.id != "" {
		ag.mu.Lock()
		s, ok := ag.sessions[a.id]
		ag.mu.Unlock()
		if ok {
			return s, nil
		}
	}
	servers, err := mcpServers(a.mcp)
	if err != nil {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	turns := newTurnState()
	up := &updater{ag: ag, turns: turns}
	live, err := ag.app.Manager.Open(ctx, session.OpenRequest{ID: a.id, Cwd: a.cwd, AddDirs: a.addDirs,
		MCPServers: servers, Sinks: []event.Sink{up}, Asker: permission.AskerFunc(ag.ask)})
	if err != nil {
		// The session manager checks the folder's settings (model, key,
		// trust) before storing anything; its message names the fix.
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s := &liveSession{live: live, turns: turns}
	ag.useClient(s)
	ag.mu.Lock()
	ag.sessions[live.ID()] = s
	ag.mu.Unlock()
	return s, nil
}

// mcpServers turns the client's server list into .mcp.json's shape.
func mcpServers(list []acpsdk.McpServer) (json.RawMessage, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]map[string]any{}
	for i, s := range list {
		var name string
		var entry map[string]any
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, e := range s.Stdio.Env {
				env[e.Name] = e.Value
			}
			name = s.Stdio.Name
			entry = map[string]any{"type": "stdio", "command": s.Stdio.Command, "args": s.Stdio.Args, "env": env}
		case s.Http != nil:
			name = s.Http.Name
			entry = map[string]any{"type": "http", "url": s.Http.Url, "headers": headers(s.Http.Headers)}
		case s.Sse != nil:
			name = s.Sse.Name
			entry = map[string]any{"type": "sse", "url": s.Sse.Url, "headers": headers(s.Sse.Headers)}
		default:
			return nil, fmt.Errorf("mcpServers[%d]: tandem connects to stdio, http and sse servers; this entry is none of them", i)
		}
		if name == "" {
			return nil, fmt.Errorf("mcpServers[%d]: give the server a name", i)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("mcpServers[%d]: the name %q is used twice", i, name)
		}
		out[name] = entry
	}
	return json.Marshal(out)
}

func headers(hs []acpsdk.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}
