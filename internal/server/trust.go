package server

import (
	"net/http"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/trust"
)

// Trust is what the API needs to show and change a folder's trust (the
// application implements it over `tandem trust`'s list).
type Trust interface {
	// TrustStatus says whether dir is trusted and which of its project
	// settings need trust.
	TrustStatus(dir string) (trust.Status, error)
	TrustFolder(dir string) (string, error)
	// RevokeFolder stops trusting dir; stillBy is the trusted folder that
	// still covers it ("" if none).
	RevokeFolder(dir string) (real, stillBy string, err error)
	TrustedFolders() ([]string, error)
}

type trustReq struct {
	Path string `json:"path"`
}

// trustPath reads the folder from ?path= (GET, DELETE) or the body (POST)
// and keeps it inside a registered workspace, as sessions are.
func (s *Server) trustPath(w http.ResponseWriter, r *http.Request) (string, *apiError) {
	if s.opts.Trust == nil {
		return "", errf(http.StatusNotImplemented, "not_implemented", "this server does not manage folder trust")
	}
	p := r.URL.Query().Get("path")
	if r.Method == http.MethodPost {
		var req trustReq
		if e := decodeBody(w, r, &req); e != nil {
			return "", e
		}
		p = req.Path
	}
	if p == "" || !filepath.IsAbs(p) {
		return "", errf(http.StatusBadRequest, "bad_path", "path must be an absolute folder path (got %q)", p)
	}
	p = filepath.Clean(p)
	if e := s.requireWorkspace(r.Context(), p); e != nil {
		return "", e
	}
	return p, nil
}

// getTrust answers GET /api/trust?path=DIR with the folder's status, or,
// without a path, the list of trusted folders.
func (s *Server) getTrust(w http.ResponseWriter, r *http.Request) {
	if s.opts.Trust != nil && r.URL.Query().Get("path") == "" {
		list, err := s.opts.Trust.TrustedFolders()
		if err != nil {
			writeError(w, errf(http.StatusInternalServerError, "trust_failed", "%v", err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"folders": append([]string{}, list...)})
		return
	}
	p, e := s.trustPath(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	s.writeTrustStatus(w, p)
}

func (s *Server) postTrust(w http.ResponseWriter, r *http.Request) {
	p, e := s.trustPath(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	if _, err := s.opts.Trust.TrustFolder(p); err != nil {
		writeError(w, errf(http.StatusBadRequest, "trust_failed", "%v", err))
		return
	}
	s.writeTrustStatus(w, p)
}

func (s *Server) deleteTrust(w http.ResponseWriter, r *http.Request) {
	p, e := s.trustPath(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	_, stillBy, err := s.opts.Trust.RevokeFolder(p)
	if err != nil {
		writeError(w, errf(http.StatusBadRequest, "trust_failed", "%v", err))
		return
	}
	if stillBy != "" {
		// Removed, but a parent still trusts it: the status says which.
		s.writeTrustStatus(w, p)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) writeTrustStatus(w http.ResponseWriter, p string) {
	st, err := s.opts.Trust.TrustStatus(p)
	if err != nil {
		writeError(w, errf(http.StatusBadRequest, "bad_config", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, st)
}
