package server

import (
	"net/http"
	"strings"
)

type compactReq struct {
	// Focus tells the summary what to keep (as "/compact <focus>").
	Focus string `json:"focus,omitempty"`
}

// compactSession queues a compaction of the session's conversation: the
// turn "/compact <focus>", which both runtimes understand.
func (s *Server) compactSession(w http.ResponseWriter, r *http.Request) {
	var req compactReq
	if r.ContentLength != 0 {
		if e := decodeBody(w, r, &req); e != nil {
			writeError(w, e)
			return
		}
	}
	if strings.ContainsAny(req.Focus, "\x00") {
		writeError(w, errf(http.StatusBadRequest, "bad_focus", "focus must be text without NUL bytes"))
		return
	}
	s.startTurn(w, r, queuedTurn{text: strings.TrimSpace("/compact " + strings.TrimSpace(req.Focus))})
}
