package server

import (
	"errors"

	"github.com/tandem-agent/tandem/internal/session"
	"net/http"
	"strings"
)

// sandboxAllow answers POST /api/sessions/{id}/sandbox/allow {host}: the
// session's commands may reach host until the session ends.
func (s *Server) sandboxAllow(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Host string `json:"host"`
	}
	if e := decodeBody(w, r, &body); e != nil {
		writeError(w, e)
		return
	}
	if strings.TrimSpace(body.Host) == "" {
		writeError(w, errf(http.StatusBadRequest, "bad_host", `give the host to allow, e.g. {"host":"api.example.com"} (as sandbox.network.allow takes it)`))
		return
	}
	l, ok := s.liveFor(w, r)
	if !ok {
		return
	}
	if err := l.SandboxAllow(body.Host); errors.Is(err, session.ErrNotWired) {
		writeError(w, errf(http.StatusNotImplemented, "not_implemented", "this server has no sandbox support wired"))
		return
	} else if err != nil {
		writeError(w, errf(http.StatusBadRequest, "sandbox_error", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"host": body.Host, "allowed": true})
}
