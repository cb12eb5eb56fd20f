package server

import (
	"net/http"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/health", methods{"GET": s.health})
	mux.Handle("/api/login", methods{"POST": s.login})
	mux.Handle("/api/logout", methods{"POST": s.logout})
	mux.Handle("/api/sessions", methods{"GET": s.listSessions, "POST": s.createSession})
	mux.Handle("/api/sessions/{id}", methods{"GET": s.getSession, "PATCH": s.patchSession, "DELETE": s.deleteSession})
	mux.Handle("/api/sessions/{id}/messages", methods{"POST": s.postMessage})
	mux.Handle("/api/sessions/{id}/events", methods{"GET": s.events})
	mux.Handle("/api/sessions/{id}/interrupt", methods{"POST": s.interrupt})
	mux.Handle("/api/sessions/{id}/compact", methods{"POST": s.compactSession})
	mux.Handle("/api/sessions/{id}/usage", methods{"GET": s.usage})
	mux.Handle("/api/sessions/{id}/checkpoints", methods{"GET": s.listCheckpoints})
	mux.Handle("/api/sessions/{id}/rewind", methods{"POST": s.rewind})
	mux.Handle("/api/sessions/{id}/mcp", methods{"GET": s.mcpStatus})
	mux.Handle("/api/sessions/{id}/skills", methods{"GET": s.sessionSkills})
	mux.Handle("/api/skills", methods{"GET": s.folderSkills})
	mux.Handle("/api/sessions/{id}/mcp/{server}", methods{"POST": s.mcpAction})
	mux.Handle("/api/permissions/{request_id}", methods{"POST": s.replyPermission})
	mux.Handle("/api/workspaces", methods{"GET": s.listWorkspaces, "POST": s.addWorkspace})
	mux.Handle("/api/workspaces/{id}", methods{"DELETE": s.deleteWorkspace})
	mux.Handle("/api/trust", methods{"GET": s.getTrust, "POST": s.postTrust, "DELETE": s.deleteTrust})
	mux.Handle("/api/providers", methods{"GET": s.providers})
	mux.Handle("/api/models", methods{"GET": s.models})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errf(http.StatusNotFound, "not_found", "no API endpoint %s %s: see docs/api.md", r.Method, r.URL.Path))
	})
	s.webRoutes(mux)
	return s.secure(mux)
}
