package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/session"
)

// need is what a route asks of its caller.
type need int

const (
	needPublic need = iota // nobody: the login call
	needUser               // any signed-in user (lists are filtered to what they may see)
	needAdmin              // an admin
	// The session of the path's {id}, judged by the caller's role in its
	// workspace: read (viewer), write (editor), manage (owner; or the
	// user who started it).
	needSessionRead
	needSessionWrite
	needSessionManage
	// The folder a request names (rule.folder), judged by the role in
	// the workspace holding it.
	needFolderRead
	needFolderWrite
	needFolderManage
	// The workspace of the path's {id}, managed by its owner.
	needWorkspaceManage
	// The session holding the path's pending {request_id}, write.
	needRequestWrite
)

// rule is one route's access rule and what the audit log records of it.
type rule struct {
	need need
	// folder is where the folder of needFolder* comes from: "query:NAME"
	// or "body:NAME" (a JSON body's string field).
	folder string
	// adminWithoutFolder: with no folder given the route lists all
	// (GET /api/trust), which only an admin may.
	adminWithoutFolder bool
	// audit is the action recorded when the route succeeds ("" none);
	// detail the body fields recorded with it (never a secret).
	audit  string
	detail []string
}

// accessRules is the one place that decides who may call what: a rule
// for every method of every API route, keyed "METHOD PATH" as apiRoutes
// names them (a test holds the two lists together and walks every route
// as a user of another workspace).
func accessRules() map[string]rule {
	return map[string]rule{
		"GET /api/health":   {need: needUser},
		"POST /api/login":   {need: needPublic},
		"POST /api/logout":  {need: needUser},
		"GET /api/me":       {need: needUser},
		"GET /api/sessions": {need: needUser},
		"POST /api/sessions": {need: needFolderWrite, folder: "body:cwd",
			audit: "session.create", detail: []string{"cwd", "model", "runtime", "mode"}},
		"GET /api/sessions/{id}":                           {need: needSessionRead},
		"PATCH /api/sessions/{id}":                         {need: needSessionWrite, audit: "session.change", detail: []string{"model", "runtime", "mode"}},
		"DELETE /api/sessions/{id}":                        {need: needSessionManage, audit: "session.delete"},
		"POST /api/sessions/{id}/messages":                 {need: needSessionWrite, audit: "prompt"},
		"GET /api/sessions/{id}/events":                    {need: needSessionRead},
		"POST /api/sessions/{id}/interrupt":                {need: needSessionWrite, audit: "session.interrupt"},
		"POST /api/sessions/{id}/compact":                  {need: needSessionWrite, audit: "session.compact"},
		"GET /api/sessions/{id}/usage":                     {need: needSessionRead},
		"GET /api/sessions/{id}/checkpoints":               {need: needSessionRead},
		"POST /api/sessions/{id}/rewind":                   {need: needSessionWrite, audit: "rewind", detail: []string{"to", "restore", "force"}},
		"GET /api/sessions/{id}/mcp":                       {need: needSessionRead},
		"GET /api/sessions/{id}/skills":                    {need: needSessionRead},
		"GET /api/skills":                                  {need: needFolderRead, folder: "query:cwd"},
		"POST /api/sessions/{id}/mcp/{server}":             {need: needSessionWrite, audit: "mcp.action", detail: []string{"action"}},
		"POST /api/sessions/{id}/sandbox/allow":            {need: needSessionWrite, audit: "sandbox.allow", detail: []string{"host"}},
		"GET /api/sessions/{id}/tasks":                     {need: needSessionRead},
		"POST /api/sessions/{id}/tasks/{task_id}/stop":     {need: needSessionWrite, audit: "task.stop"},
		"POST /api/sessions/{id}/permissions/{request_id}": {need: needSessionWrite, audit: "permission.answer", detail: []string{"decision", "scope"}},
		"POST /api/permissions/{request_id}":               {need: needRequestWrite, audit: "permission.answer", detail: []string{"decision", "scope"}},
		"GET /api/workspaces":                              {need: needUser},
		"POST /api/workspaces":                             {need: needAdmin, audit: "workspace.add", detail: []string{"path"}},
		"DELETE /api/workspaces/{id}":                      {need: needAdmin, audit: "workspace.delete"},
		"GET /api/workspaces/{id}/members":                 {need: needWorkspaceManage},
		"PUT /api/workspaces/{id}/members/{user}":          {need: needWorkspaceManage},
		"DELETE /api/workspaces/{id}/members/{user}":       {need: needWorkspaceManage},
		"GET /api/trust":                                   {need: needFolderRead, folder: "query:path", adminWithoutFolder: true},
		"POST /api/trust":                                  {need: needFolderManage, folder: "body:path", audit: "trust.set", detail: []string{"path"}},
		"DELETE /api/trust":                                {need: needFolderManage, folder: "query:path", audit: "trust.remove", detail: []string{"path"}},
		"GET /api/providers":                               {need: needUser},
		"GET /api/models":                                  {need: needUser},
		// Which replicas run, the folders each reaches and their load: an
		// operator's view naming every team's folders (replicas.go).
		"GET /api/replicas":            {need: needAdmin},
		"GET /api/users":               {need: needAdmin},
		"POST /api/users":              {need: needAdmin},
		"PATCH /api/users/{user}":      {need: needAdmin},
		"POST /api/users/{user}/token": {need: needAdmin},
		"GET /api/audit":               {need: needAdmin},
	}
}

// authorize wraps one route's method handler with its rule: the access
// check before, the audit entry after a success.
func (s *Server) authorize(key string, rl rule, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rl.need == needPublic {
			h.ServeHTTP(w, r)
			return
		}
		c := callerOf(r)
		body, e := peekBody(r, rl)
		if e != nil {
			writeError(w, e)
			return
		}
		target, e := s.decide(r, c, rl, body)
		if e != nil {
			writeError(w, e)
			return
		}
		if rl.audit == "" {
			h.ServeHTTP(w, r)
			return
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK, keep: key == "POST /api/sessions"}
		h.ServeHTTP(rec, r)
		if rec.status/100 != 2 {
			return
		}
		s.afterSuccess(r, c, rl, body, target, rec)
	})
}

// afterSuccess records the audit entry of a route that succeeded (and the
// owner of a session just created).
func (s *Server) afterSuccess(r *http.Request, c *caller, rl rule, body map[string]any, target string, rec *recorder) {
	ctx := context.WithoutCancel(r.Context())
	var detail []string
	for _, f := range rl.detail {
		if v, ok := body[f]; ok && v != nil && v != "" {
			detail = append(detail, fmt.Sprintf("%s=%v", f, v))
		}
	}
	if rl.audit == "prompt" {
		if t, ok := body["text"].(string); ok {
			// The prompt itself stays in the session, not the log.
			detail = append(detail, fmt.Sprintf("chars=%d", len([]rune(t))))
		}
	}
	if rec.keep {
		var created struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(rec.body.Bytes(), &created) == nil && created.ID != "" {
			target = created.ID
			if c.user.ID != "" {
				if err := s.accounts.SetOwner(ctx, created.ID, c.user.ID); err != nil {
					s.log.Error("record session owner", "session", created.ID, "err", err)
				}
			}
		}
	}
	if err := s.accounts.Audit(ctx, c.actor(), rl.audit, target, strings.Join(detail, " ")); err != nil {
		s.log.Error("audit", "action", rl.audit, "err", err)
	}
}

// recorder notes a handler's status (and, when keep, its body) for the
// audit entry; Unwrap lets http.ResponseController reach the connection.
type recorder struct {
	http.ResponseWriter
	status int
	keep   bool
	body   bytes.Buffer
	wrote  bool
}

func (rc *recorder) WriteHeader(code int) {
	if !rc.wrote {
		rc.status, rc.wrote = code, true
	}
	rc.ResponseWriter.WriteHeader(code)
}

func (rc *recorder) Write(b []byte) (int, error) {
	rc.wrote = true
	if rc.keep && rc.body.Len() < 64<<10 {
		rc.body.Write(b)
	}
	return rc.ResponseWriter.Write(b)
}

func (rc *recorder) Unwrap() http.ResponseWriter { return rc.ResponseWriter }

// peekBody decodes a JSON body's top-level fields when the rule reads
// one, and puts the bytes back for the handler. A body that is not JSON
// is left for the handler to refuse with its own error.
func peekBody(r *http.Request, rl rule) (map[string]any, *apiError) {
	if r.Body == nil || (!strings.HasPrefix(rl.folder, "body:") && rl.audit == "") {
		return nil, nil
	}
	limit := int64(maxBody)
	if rl.audit == "prompt" {
		limit = maxMessageBody
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body.Close()
	if err != nil {
		return nil, errf(http.StatusBadRequest, "bad_body", "could not read the request body: %v", err)
	}
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), r.Body))
	var fields map[string]any
	_ = json.Unmarshal(data, &fields)
	return fields, nil
}

// decide applies the rule to the caller and returns the audit target
// (the session, workspace or folder), or the refusal.
func (s *Server) decide(r *http.Request, c *caller, rl rule, body map[string]any) (string, *apiError) {
	ctx := r.Context()
	switch rl.need {
	case needUser:
		return "", nil
	case needAdmin:
		if !c.admin() {
			return "", errf(http.StatusForbidden, "admin_required", "only an admin may do this: ask one (tandem users list shows them)")
		}
		return r.PathValue("id"), nil
	case needSessionRead, needSessionWrite, needSessionManage:
		return s.decideSession(ctx, c, r.PathValue("id"), rl.need)
	case needRequestWrite:
		id := r.PathValue("request_id")
		for _, l := range s.liveSessions() {
			for _, q := range l.Pending() {
				if q.RequestID == id {
					return s.decideSession(ctx, c, l.Info().ID, needSessionWrite)
				}
			}
		}
		// Not pending anywhere: the handler says not found or already
		// answered, which tells nothing of other users' sessions.
		return "", nil
	case needFolderRead, needFolderWrite, needFolderManage:
		folder := folderOf(r, rl.folder, body)
		if folder == "" {
			if rl.adminWithoutFolder && !c.admin() {
				return "", errf(http.StatusForbidden, "admin_required", "only an admin may list every folder: name one with ?path=")
			}
			return "", nil // the handler refuses the missing folder
		}
		a, _, err := s.accounts.FolderAccess(ctx, c.user, folder)
		if err != nil {
			return "", errf(http.StatusInternalServerError, "accounts", "could not check access to %s: %v", folder, err)
		}
		if a < levelOf(rl.need) {
			return "", forbidden(a, folder, "folder")
		}
		return folder, nil
	case needWorkspaceManage:
		id := r.PathValue("id")
		a, err := s.accounts.WorkspaceAccess(ctx, c.user, id)
		if err != nil {
			return "", errf(http.StatusInternalServerError, "accounts", "could not check access to workspace %s: %v", id, err)
		}
		if a == accounts.NoAccess {
			return "", errf(http.StatusNotFound, "not_found", "no workspace %s", id)
		}
		if a < accounts.Manage {
			return "", forbidden(a, id, "workspace")
		}
		return id, nil
	}
	return "", errf(http.StatusForbidden, "forbidden", "this route has no access rule")
}

func levelOf(n need) accounts.Access {
	switch n {
	case needSessionRead, needFolderRead:
		return accounts.Read
	case needSessionWrite, needFolderWrite, needRequestWrite:
		return accounts.Write
	}
	return accounts.Manage
}

// decideSession judges the caller's access to a session through its
// folder's workspace. A session the caller may not see is "not found", as
// one that does not exist, so ids of other people's sessions leak nothing.
func (s *Server) decideSession(ctx context.Context, c *caller, id string, n need) (string, *apiError) {
	if c.admin() {
		return id, nil
	}
	if err := session.CheckID("session", id); err != nil {
		return "", errf(http.StatusBadRequest, "bad_id", "%v", err)
	}
	rec, err := s.mgr.Find(ctx, id)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
			return "", errf(http.StatusNotFound, "not_found", "no session %s", id)
		}
		return "", storeError(err, "session", id)
	}
	a, _, err := s.accounts.FolderAccess(ctx, c.user, rec.Cwd)
	if err != nil {
		return "", errf(http.StatusInternalServerError, "accounts", "could not check access to session %s: %v", id, err)
	}
	if a == accounts.NoAccess {
		return "", errf(http.StatusNotFound, "not_found", "no session %s", id)
	}
	if n == needSessionManage && a == accounts.Write {
		// An editor manages the sessions they started.
		if owner, err := s.accounts.Owner(ctx, rec.ID); err == nil && owner == c.user.ID {
			return rec.ID, nil
		}
	}
	if a < levelOf(n) {
		return "", forbidden(a, rec.ID, "session")
	}
	return rec.ID, nil
}

func forbidden(a accounts.Access, what, kind string) *apiError {
	if a == accounts.NoAccess {
		return errf(http.StatusForbidden, "workspace_forbidden",
			"you are not a member of the workspace holding %s: ask its owner or an admin to add you", what)
	}
	return errf(http.StatusForbidden, "role_forbidden",
		"your role gives %s access to this %s, not enough for this: ask the workspace's owner for a higher role", a, kind)
}

// folderOf reads the folder a rule names from the request.
func folderOf(r *http.Request, from string, body map[string]any) string {
	var v string
	if name, ok := strings.CutPrefix(from, "query:"); ok {
		v = r.URL.Query().Get(name)
	} else if name, ok := strings.CutPrefix(from, "body:"); ok {
		v, _ = body[name].(string)
	}
	if v == "" || !filepath.IsAbs(v) {
		return ""
	}
	return filepath.Clean(v)
}

// canSee returns the filter of what a listing shows the caller: every
// folder to an admin, else those of workspaces they belong to. A failed
// check hides the folder.
func (s *Server) canSee(ctx context.Context, c *caller) func(folder string) bool {
	if c.admin() {
		return func(string) bool { return true }
	}
	seen := map[string]bool{}
	return func(folder string) bool {
		ok, done := seen[folder]
		if !done {
			a, _, err := s.accounts.FolderAccess(ctx, c.user, folder)
			ok = err == nil && a >= accounts.Read
			seen[folder] = ok
		}
		return ok
	}
}
