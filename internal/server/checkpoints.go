package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/session"
)

// listCheckpoints is GET /api/sessions/{id}/checkpoints.
func (s *Server) listCheckpoints(w http.ResponseWriter, r *http.Request) {
	if s.opts.Checkpoints == nil {
		writeError(w, errf(http.StatusNotImplemented, "not_implemented", "this server keeps no checkpoints"))
		return
	}
	rec, err := s.mgr.Find(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, storeError(err, "session", r.PathValue("id")))
		return
	}
	if e := s.requireWorkspace(r.Context(), rec.Cwd); e != nil {
		writeError(w, e)
		return
	}
	cps, err := s.opts.Checkpoints.List(r.Context(), rec.ID)
	if err != nil {
		writeError(w, storeError(err, "session", rec.ID))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"session_id": rec.ID, "checkpoints": checkpoint.Summaries(cps, rec.Cwd)})
}

type rewindReq struct {
	To int `json:"to"`
	// Restore is "both" (default), "files" or "conversation".
	Restore string `json:"restore,omitempty"`
	Force   bool   `json:"force,omitempty"`
}

// rewind is POST /api/sessions/{id}/rewind. It refuses while a turn runs
// or waits, and holds the session so none starts until it is done.
func (s *Server) rewind(w http.ResponseWriter, r *http.Request) {
	if s.opts.Checkpoints == nil {
		writeError(w, errf(http.StatusNotImplemented, "not_implemented", "this server keeps no checkpoints"))
		return
	}
	var req rewindReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	opt := checkpoint.RewindOptions{Force: req.Force}
	switch req.Restore {
	case "", "both":
	case "files":
		opt.FilesOnly = true
	case "conversation":
		opt.ConversationOnly = true
	default:
		writeError(w, errf(http.StatusBadRequest, "bad_restore", "restore %q: use both, files or conversation", req.Restore))
		return
	}
	if req.To < 1 {
		writeError(w, errf(http.StatusBadRequest, "bad_to", "to must be a prompt number, 1 or more (GET .../checkpoints lists them)"))
		return
	}
	st, e := s.state(r.Context(), r.PathValue("id"))
	if e != nil {
		writeError(w, e)
		return
	}
	rec, err := s.mgr.Find(r.Context(), st.id)
	if err != nil {
		writeError(w, storeError(err, "session", st.id))
		return
	}
	if e := s.requireWorkspace(r.Context(), rec.Cwd); e != nil {
		writeError(w, e)
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.running || len(st.queue) > 0 {
		writeError(w, errf(http.StatusConflict, "busy", "the session has a turn running or queued: interrupt it first"))
		return
	}
	// Another process (`tandem run --resume`) may be running a turn.
	release, err := s.opts.Manager.Hold(r.Context(), st.id)
	switch {
	case errors.Is(err, session.ErrBusy):
		writeError(w, errf(http.StatusConflict, "busy", "%v: wait for its turn to end, or interrupt it", err))
		return
	case err != nil:
		writeError(w, storeError(err, "session", st.id))
		return
	}
	defer release()
	if st.live != nil {
		opt.Roots = st.live.Roots()
	}
	res, err := s.opts.Checkpoints.Rewind(r.Context(), st.id, req.To, opt)
	var blocked *checkpoint.BlockedError
	var conflict *checkpoint.ConflictError
	switch {
	case errors.As(err, &conflict):
		writeError(w, errf(http.StatusConflict, "changed_outside", "%s", conflict.Error()))
		return
	case errors.As(err, &blocked):
		writeError(w, errf(http.StatusConflict, "in_the_way", "%s", blocked.Error()))
		return
	case err != nil:
		writeError(w, errf(http.StatusBadRequest, "rewind_failed", "%v", err))
		return
	}
	// The conversation is shorter now: GET returns what is stored.
	if fresh, err := s.mgr.Find(r.Context(), st.id); err == nil {
		st.boundaryMsgs = fresh.MessageCount
	}
	if st.live != nil {
		// Other clients showing the session reload its messages.
		st.live.Events().Emit(event.Event{Type: event.Status, Subtype: SubtypeRewound,
			Message: fmt.Sprintf("rewound to before prompt %d", req.To)})
		s.saveSeq(st.live)
		st.boundarySeq = st.live.Events().LastSeq()
	}
	writeJSON(w, http.StatusOK, res.Summarize(rec.Cwd))
}
