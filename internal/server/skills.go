package server

import (
	"net/http"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/listing"
)

// Extensions lists the skills, custom commands and agents of a folder
// (internal/app implements it). nil: the skills endpoints answer 501.
type Extensions interface {
	ExtensionsFor(cwd string) (*listing.Extensions, error)
}

// sessionSkills answers GET /api/sessions/{id}/skills: what the session's
// model and user can run (skills, /commands for completion, agents) and
// the problems found in their files.
func (s *Server) sessionSkills(w http.ResponseWriter, r *http.Request) {
	if s.opts.Extensions == nil {
		writeError(w, errf(http.StatusNotImplemented, "not_implemented", "this server has no skills support wired"))
		return
	}
	l, ok := s.liveFor(w, r)
	if !ok {
		return
	}
	// What the session loaded when it was equipped; a session whose
	// equipment does not say is listed from its folder.
	if ext, ok := l.Extensions(); ok {
		writeJSON(w, http.StatusOK, ext)
		return
	}
	out, err := s.opts.Extensions.ExtensionsFor(l.Info().Cwd)
	if err != nil {
		writeError(w, errf(http.StatusInternalServerError, "skills_failed", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// folderSkills answers GET /api/skills?workspace=<id or absolute path of a
// registered workspace>.
func (s *Server) folderSkills(w http.ResponseWriter, r *http.Request) {
	if s.opts.Extensions == nil {
		writeError(w, errf(http.StatusNotImplemented, "not_implemented", "this server has no skills support wired"))
		return
	}
	want := r.URL.Query().Get("workspace")
	if want == "" {
		writeError(w, errf(http.StatusBadRequest, "missing_workspace", "give ?workspace= a workspace id or its absolute path (see GET /api/workspaces)"))
		return
	}
	ws, err := s.workspaces.ListWorkspaces(r.Context())
	if err != nil {
		writeError(w, storeError(err, "workspace", ""))
		return
	}
	path := ""
	for _, x := range ws {
		if x.ID == want || (filepath.IsAbs(want) && x.Path == filepath.Clean(want)) {
			path = x.Path
		}
	}
	if path == "" {
		writeError(w, errf(http.StatusNotFound, "no_workspace", "no workspace %q: add it with POST /api/workspaces first", want))
		return
	}
	out, err := s.opts.Extensions.ExtensionsFor(path)
	if err != nil {
		writeError(w, errf(http.StatusBadRequest, "skills_failed", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, out)
}
