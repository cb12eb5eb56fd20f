package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tandem-agent/tandem/internal/accounts"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/session"
)

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	running := 0
	for _, st := range s.sessions {
		if st.snapshot().running {
			running++
		}
	}
	s.mu.Unlock()
	status := "ok"
	if s.base.Err() != nil {
		status = "shutting_down"
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": status, "running_sessions": running, "time": time.Now().UTC()})
}

type loginReq struct {
	Token string `json:"token"`
}

// login trades the token for an HttpOnly cookie, so the page's scripts
// never hold it after this call.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	var req loginReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	if c, err := s.identify(r.Context(), req.Token); c == nil || c.webSession != "" {
		msg := "the token is wrong: use your personal token, or while no users exist the one `tandem serve` printed (the data folder's server-token file)"
		if err != nil && !errors.Is(err, accounts.ErrBadToken) {
			msg = err.Error()
		}
		writeError(w, errf(http.StatusUnauthorized, "unauthorized", "%s", msg))
		return
	}
	s.setCookie(w, r, req.Token, 0)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c := callerOf(r); c.webSession != "" {
		if err := s.accounts.SignOut(r.Context(), c.webSession); err != nil {
			writeError(w, errf(http.StatusServiceUnavailable, "accounts_unavailable", "%v", err))
			return
		}
		// The streams this sign-in opened end now, not at the next
		// recheck.
		s.recheck(r.Context())
	}
	s.setCookie(w, r, "", -1)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

type replyReq struct {
	Decision string `json:"decision"`
	Message  string `json:"message,omitempty"`
	Scope    string `json:"scope,omitempty"`
	// Mode and Answers answer a question of a kind (plan approval, the
	// model's questions): permission.Answer says what they mean.
	Mode    string            `json:"mode,omitempty"`
	Answers map[string]string `json:"answers,omitempty"`
	// UpdatedInput, with allow_once of an MCP server's question
	// (elicitation), is the form's values; the broker checks them.
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"`
}

// replyPermission answers a request found among every live session (the
// first path, kept as an alias: it names no session, so each is asked).
func (s *Server) replyPermission(w http.ResponseWriter, r *http.Request) {
	s.answerPermission(w, r, func(id string, ans permission.Answer) error {
		for _, l := range s.liveSessions() {
			if err := l.Reply(id, ans); !errors.Is(err, permission.ErrUnknownRequest) {
				return err
			}
		}
		return fmt.Errorf("reply to %s: %w", id, permission.ErrUnknownRequest)
	})
}

// replySessionPermission answers a request of the session the path names,
// straight to that session: a request id of another session is not found
// here.
func (s *Server) replySessionPermission(w http.ResponseWriter, r *http.Request) {
	sid := r.PathValue("id")
	if err := session.CheckID("session", sid); err != nil {
		writeError(w, errf(http.StatusBadRequest, "bad_id", "%v", err))
		return
	}
	s.answerPermission(w, r, func(id string, ans permission.Answer) error {
		if s.opts.Turns != nil { // the turn may run on another replica
			return s.answerDurable(r.Context(), sid, id, ans)
		}
		// A question is asked only while its turn runs, so its session
		// is live here.
		l := s.liveSession(sid)
		if l == nil {
			return fmt.Errorf("reply to %s: session %s is not running: %w", id, sid, permission.ErrUnknownRequest)
		}
		return l.Reply(id, ans)
	})
}

func (s *Server) answerPermission(w http.ResponseWriter, r *http.Request, reply func(requestID string, a permission.Answer) error) {
	var req replyReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	switch req.Decision {
	case permission.AllowOnce, permission.AllowAlways, permission.DenyCall, permission.Cancel:
	default:
		writeError(w, errf(http.StatusBadRequest, "bad_decision", "decision %q is not one of allow_once, allow_always, deny (or cancel, for an MCP server's question)", req.Decision))
		return
	}
	id := r.PathValue("request_id")
	err := reply(id, permission.Answer{Decision: req.Decision, Message: req.Message,
		Scope: permission.Scope(req.Scope), By: "http:" + r.RemoteAddr, Mode: permission.Mode(req.Mode), Answers: req.Answers, UpdatedInput: req.UpdatedInput})
	switch {
	case err == nil:
		s.answered.add(id)
		writeJSON(w, http.StatusOK, map[string]any{"request_id": id, "decision": req.Decision})
	case errors.Is(err, permission.ErrAlreadyAnswered) || (errors.Is(err, permission.ErrUnknownRequest) && s.answered.has(id)):
		writeError(w, errf(http.StatusConflict, "already_answered", "permission request %s was already answered", id))
	case errors.Is(err, permission.ErrUnknownRequest):
		writeError(w, errf(http.StatusNotFound, "not_found", "no pending permission request %q", id))
	default:
		writeError(w, errf(http.StatusBadRequest, "bad_reply", "%v", err))
	}
}

func (s *Server) listWorkspaces(w http.ResponseWriter, r *http.Request) {
	ws, err := s.workspaces.ListWorkspaces(r.Context())
	if err != nil {
		writeError(w, storeError(err, "workspace", ""))
		return
	}
	out := make([]workspaceJSON, 0, len(ws))
	visible := s.canSee(r.Context(), callerOf(r))
	for _, x := range ws {
		if !visible(x.Path) {
			continue
		}
		out = append(out, toWorkspaceJSON(x))
	}
	writeJSON(w, http.StatusOK, map[string]any{"workspaces": out})
}

type workspaceReq struct {
	Path string `json:"path"`
}

func (s *Server) addWorkspace(w http.ResponseWriter, r *http.Request) {
	var req workspaceReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	if !filepath.IsAbs(req.Path) {
		writeError(w, errf(http.StatusBadRequest, "bad_path", "path must be an absolute folder path (got %q)", req.Path))
		return
	}
	fi, err := os.Stat(req.Path)
	if err != nil || !fi.IsDir() {
		writeError(w, errf(http.StatusBadRequest, "bad_path", "%s is not an existing folder", req.Path))
		return
	}
	ws, err := s.workspaces.AddWorkspace(r.Context(), req.Path)
	if err != nil {
		writeError(w, errf(http.StatusBadRequest, "bad_path", "could not register %s: %v", req.Path, err))
		return
	}
	if s.opts.Turns != nil { // take the new workspace's turns at once
		if err := s.opts.Turns.Listen(s.turnQueues(r.Context())); err != nil {
			s.log.Warn("listen to the workspaces' turn queues", "err", err)
		}
	}
	writeJSON(w, http.StatusCreated, toWorkspaceJSON(ws))
}

func (s *Server) deleteWorkspace(w http.ResponseWriter, r *http.Request) {
	if err := s.workspaces.DeleteWorkspace(r.Context(), r.PathValue("id")); err != nil {
		writeError(w, storeError(err, "workspace", r.PathValue("id")))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) providers(w http.ResponseWriter, r *http.Request) {
	out := []listing.ProviderInfo{}
	if s.opts.Catalog != nil {
		out = append(out, s.opts.Catalog.Providers()...)
	}
	writeJSON(w, http.StatusOK, map[string]any{"providers": out})
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	out := []listing.ModelInfo{}
	if s.opts.Catalog != nil {
		out = append(out, s.opts.Catalog.Models()...)
	}
	def := s.opts.DefaultModel
	for _, m := range out {
		if def == "" && m.Default {
			def = m.ID
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": out, "default_model": def,
		"runtimes": runtimes.Names(), "modes": permission.Modes()})
}

// liveSession is the session id open in this server (nil: not open).
func (s *Server) liveSession(id string) *session.Live {
	s.mu.Lock()
	st, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.live
}

// liveSessions are the sessions open in this server.
func (s *Server) liveSessions() []*session.Live {
	s.mu.Lock()
	states := make([]*sessState, 0, len(s.sessions))
	for _, st := range s.sessions {
		states = append(states, st)
	}
	s.mu.Unlock()
	var out []*session.Live
	for _, st := range states {
		st.mu.Lock()
		if st.live != nil {
			out = append(out, st.live)
		}
		st.mu.Unlock()
	}
	return out
}
