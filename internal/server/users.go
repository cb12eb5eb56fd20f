package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/tandem-agent/tandem/internal/accounts"
)

// accountRoutes are the routes of users, workspace members and the audit
// log; their access rules are in accessRules with the rest.
func (s *Server) accountRoutes() []route {
	return []route{
		{"/api/me", methods{"GET": s.me}},
		{"/api/users", methods{"GET": s.listUsers, "POST": s.addUser}},
		{"/api/users/{user}", methods{"PATCH": s.patchUser}},
		{"/api/users/{user}/token", methods{"POST": s.rotateToken}},
		{"/api/workspaces/{id}/members", methods{"GET": s.listMembers}},
		{"/api/workspaces/{id}/members/{user}", methods{"PUT": s.putMember, "DELETE": s.deleteMember}},
		{"/api/audit", methods{"GET": s.audit}},
	}
}

type userJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email,omitempty"`
	Admin     bool      `json:"admin"`
	Disabled  bool      `json:"disabled"`
	CreatedAt time.Time `json:"created_at,omitzero"`
}

func toUserJSON(u accounts.User) userJSON {
	return userJSON{ID: u.ID, Name: u.Name, Email: u.Email, Admin: u.Admin, Disabled: u.Disabled, CreatedAt: u.CreatedAt}
}

type memberJSON struct {
	WorkspaceID string `json:"workspace_id"`
	UserID      string `json:"user_id"`
	Role        string `json:"role"`
}

func toMembersJSON(ms []accounts.Member) []memberJSON {
	out := make([]memberJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, memberJSON{m.WorkspaceID, m.UserID, m.Role})
	}
	return out
}

// me is GET /api/me: who the caller is, their workspaces and, for a
// signed-in page, the CSRF token its state changes carry.
func (s *Server) me(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r)
	out := map[string]any{"user": toUserJSON(c.user), "memberships": []memberJSON{}}
	if c.user.ID != "" {
		ms, err := s.accounts.Memberships(r.Context(), c.user.ID)
		if err != nil {
			writeError(w, storeError(err, "user", c.user.ID))
			return
		}
		out["memberships"] = toMembersJSON(ms)
	}
	if c.webSession != "" {
		out["csrf_token"] = c.csrf
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	list, err := s.accounts.List(r.Context())
	if err != nil {
		writeError(w, storeError(err, "user", ""))
		return
	}
	out := make([]userJSON, 0, len(list))
	for _, u := range list {
		out = append(out, toUserJSON(u))
	}
	writeJSON(w, http.StatusOK, map[string]any{"users": out})
}

type addUserReq struct {
	Name  string `json:"name"`
	Admin bool   `json:"admin,omitempty"`
}

// addUser is POST /api/users: the new user's token is in the answer, once.
func (s *Server) addUser(w http.ResponseWriter, r *http.Request) {
	var req addUserReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	u, tok, err := s.accounts.Add(r.Context(), callerOf(r).actor(), req.Name, req.Admin)
	if err != nil {
		writeError(w, userError(err, req.Name))
		return
	}
	// The server token stops with the first user: end what it opened.
	s.recheck(r.Context())
	writeJSON(w, http.StatusCreated, map[string]any{"user": toUserJSON(u), "token": tok})
}

type patchUserReq struct {
	Admin    *bool `json:"admin,omitempty"`
	Disabled *bool `json:"disabled,omitempty"`
}

func (s *Server) patchUser(w http.ResponseWriter, r *http.Request) {
	var req patchUserReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	c, name := callerOf(r), r.PathValue("user")
	var u accounts.User
	var err error
	if req.Disabled != nil {
		if u, err = s.accounts.SetDisabled(r.Context(), c.actor(), name, *req.Disabled); err != nil {
			writeError(w, userError(err, name))
			return
		}
	}
	if req.Admin != nil {
		if u, err = s.accounts.SetAdmin(r.Context(), c.actor(), name, *req.Admin); err != nil {
			writeError(w, userError(err, name))
			return
		}
	}
	if u.ID == "" {
		if u, err = s.accounts.Get(r.Context(), name); err != nil {
			writeError(w, userError(err, name))
			return
		}
	}
	s.recheck(r.Context())
	writeJSON(w, http.StatusOK, toUserJSON(u))
}

// rotateToken is POST /api/users/{user}/token: a new token, once; the
// old one stops at once, open streams included.
func (s *Server) rotateToken(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("user")
	u, tok, err := s.accounts.Rotate(r.Context(), callerOf(r).actor(), name)
	if err != nil {
		writeError(w, userError(err, name))
		return
	}
	s.recheck(r.Context())
	writeJSON(w, http.StatusOK, map[string]any{"user": toUserJSON(u), "token": tok})
}

func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) {
	ms, err := s.accounts.Members(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, storeError(err, "workspace", r.PathValue("id")))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"members": toMembersJSON(ms)})
}

type memberReq struct {
	Role string `json:"role"`
}

func (s *Server) putMember(w http.ResponseWriter, r *http.Request) {
	var req memberReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	name := r.PathValue("user")
	u, err := s.accounts.Get(r.Context(), name)
	if err != nil {
		writeError(w, userError(err, name))
		return
	}
	m := accounts.Member{WorkspaceID: r.PathValue("id"), UserID: u.ID, Role: req.Role}
	if err := s.accounts.SetMember(r.Context(), callerOf(r).actor(), m); err != nil {
		if errors.Is(err, accounts.ErrNotFound) {
			writeError(w, errf(http.StatusNotFound, "not_found", "no workspace %s", m.WorkspaceID))
			return
		}
		writeError(w, errf(http.StatusBadRequest, "bad_role", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, memberJSON{m.WorkspaceID, m.UserID, m.Role})
}

func (s *Server) deleteMember(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("user")
	u, err := s.accounts.Get(r.Context(), name)
	if err != nil {
		writeError(w, userError(err, name))
		return
	}
	if err := s.accounts.RemoveMember(r.Context(), callerOf(r).actor(), r.PathValue("id"), u.ID); err != nil {
		writeError(w, storeError(err, "member", name))
		return
	}
	s.recheck(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

// audit is GET /api/audit?user=&limit=.
func (s *Server) audit(w http.ResponseWriter, r *http.Request) {
	q := accounts.AuditQuery{}
	if v := r.URL.Query().Get("limit"); v != "" {
		n, ok := atoiNonNeg(v)
		if !ok {
			writeError(w, errf(http.StatusBadRequest, "bad_query", "limit must be a non-negative integer (got %q)", v))
			return
		}
		q.Limit = n
	}
	if name := r.URL.Query().Get("user"); name != "" {
		u, err := s.accounts.Get(r.Context(), name)
		if err != nil {
			writeError(w, userError(err, name))
			return
		}
		q.Actor = u.ID
	}
	list, err := s.accounts.AuditLog(r.Context(), q)
	if err != nil {
		writeError(w, storeError(err, "audit", ""))
		return
	}
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		out = append(out, map[string]any{"id": e.ID, "at": e.At, "actor": e.Actor, "action": e.Action, "target": e.Target, "detail": e.Detail})
	}
	writeJSON(w, http.StatusOK, map[string]any{"entries": out})
}

func userError(err error, name string) *apiError {
	switch {
	case errors.Is(err, accounts.ErrNotFound):
		return errf(http.StatusNotFound, "not_found", "no user %s", name)
	case errors.Is(err, accounts.ErrExists):
		return errf(http.StatusConflict, "user_exists", "user %s exists already: pick another name, or rotate their token", name)
	}
	return errf(http.StatusBadRequest, "bad_user", "%v", err)
}

func atoiNonNeg(v string) (int, bool) {
	n := 0
	for _, r := range v {
		if r < '0' || r > '9' || n > 1<<20 {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, v != ""
}
