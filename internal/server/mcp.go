package server

import (
	"net/http"

	"github.com/tandem-agent/tandem/internal/session"
)

// liveFor opens (or returns) the live session the path's {id} names, or
// writes the error: one place for every endpoint that needs the session
// running (its equipment's MCP, extensions, sandbox; a model or mode
// change).
func (s *Server) liveFor(w http.ResponseWriter, r *http.Request) (*session.Live, bool) {
	st, e := s.state(r.Context(), r.PathValue("id"))
	if e != nil {
		writeError(w, e)
		return nil, false
	}
	st.mu.Lock()
	l, err := s.ensureLive(r.Context(), st)
	st.mu.Unlock()
	if err != nil {
		writeError(w, openError(err, http.StatusInternalServerError, "open session "+st.id+": %v"))
		return nil, false
	}
	return l, true
}

// mcpFor gives the path's live session, for the MCP endpoints: 501 when
// its equipment has no MCP control.
func (s *Server) mcpFor(w http.ResponseWriter, r *http.Request) (*session.Live, bool) {
	l, ok := s.liveFor(w, r)
	if !ok {
		return nil, false
	}
	if _, _, wired := l.MCPStatus(); !wired {
		writeError(w, errf(http.StatusNotImplemented, "not_implemented", "this server has no MCP support wired"))
		return nil, false
	}
	return l, true
}

// mcpStatus answers GET /api/sessions/{id}/mcp: servers with their state
// and the prompts they offer.
func (s *Server) mcpStatus(w http.ResponseWriter, r *http.Request) {
	m, ok := s.mcpFor(w, r)
	if !ok {
		return
	}
	servers, prompts, _ := m.MCPStatus()
	writeJSON(w, http.StatusOK, map[string]any{"servers": servers, "prompts": prompts})
}

// mcpAction answers POST /api/sessions/{id}/mcp/{server} {action}.
func (s *Server) mcpAction(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Action string `json:"action"`
	}
	if e := decodeBody(w, r, &body); e != nil {
		writeError(w, e)
		return
	}
	switch body.Action {
	case "enable", "disable", "approve", "reconnect", "login":
	default:
		writeError(w, errf(http.StatusBadRequest, "bad_action", "action %q: use enable, disable, approve, reconnect or login", body.Action))
		return
	}
	m, ok := s.mcpFor(w, r)
	if !ok {
		return
	}
	if err := m.MCPAction(r.PathValue("server"), body.Action); err != nil {
		writeError(w, errf(http.StatusBadRequest, "mcp_error", "%v", err))
		return
	}
	servers, _, _ := m.MCPStatus()
	writeJSON(w, http.StatusOK, map[string]any{"servers": servers})
}
