package server

import (
	"net/http"
)

// route is one API path with its handlers by method. The list is the one
// owner of what the API serves: routes registers it and a test holds
// docs/openapi.yaml to it.
type route struct {
	path    string
	methods methods
}

func (s *Server) apiRoutes() []route {
	return append([]route{
		{"/api/health", methods{"GET": s.health}},
		{"/api/login", methods{"POST": s.login}},
		{"/api/logout", methods{"POST": s.logout}},
		{"/api/sessions", methods{"GET": s.listSessions, "POST": s.createSession}},
		{"/api/sessions/{id}", methods{"GET": s.getSession, "PATCH": s.patchSession, "DELETE": s.deleteSession}},
		{"/api/sessions/{id}/messages", methods{"POST": s.postMessage}},
		{"/api/sessions/{id}/events", methods{"GET": s.events}},
		{"/api/sessions/{id}/interrupt", methods{"POST": s.interrupt}},
		{"/api/sessions/{id}/compact", methods{"POST": s.compactSession}},
		{"/api/sessions/{id}/usage", methods{"GET": s.usage}},
		{"/api/sessions/{id}/checkpoints", methods{"GET": s.listCheckpoints}},
		{"/api/sessions/{id}/rewind", methods{"POST": s.rewind}},
		{"/api/sessions/{id}/mcp", methods{"GET": s.mcpStatus}},
		{"/api/sessions/{id}/skills", methods{"GET": s.sessionSkills}},
		{"/api/skills", methods{"GET": s.folderSkills}},
		{"/api/sessions/{id}/mcp/{server}", methods{"POST": s.mcpAction}},
		{"/api/sessions/{id}/sandbox/allow", methods{"POST": s.sandboxAllow}},
		{"/api/sessions/{id}/tasks", methods{"GET": s.listTasks}},                // tasks.go
		{"/api/sessions/{id}/tasks/{task_id}/stop", methods{"POST": s.stopTask}}, // tasks.go
		{"/api/sessions/{id}/permissions/{request_id}", methods{"POST": s.replySessionPermission}},
		// The first path, kept for clients written against it; it finds
		// the request among every live session.
		{"/api/permissions/{request_id}", methods{"POST": s.replyPermission}},
		{"/api/workspaces", methods{"GET": s.listWorkspaces, "POST": s.addWorkspace}},
		{"/api/workspaces/{id}", methods{"DELETE": s.deleteWorkspace}},
		{"/api/trust", methods{"GET": s.getTrust, "POST": s.postTrust, "DELETE": s.deleteTrust}},
		{"/api/providers", methods{"GET": s.providers}},
		{"/api/models", methods{"GET": s.models}},
		{"/api/replicas", methods{"GET": s.listReplicas}}, // replicas.go
	}, s.accountRoutes()...)
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	rules := accessRules()
	for _, rt := range s.apiRoutes() {
		guarded := methods{}
		for m, h := range rt.methods {
			key := m + " " + rt.path
			rl, ok := rules[key]
			if !ok {
				// accessRules must name every route (TestAccessRulesCoverRoutes).
				rl = rule{need: needAdmin}
			}
			guarded[m] = s.authorize(key, rl, h).ServeHTTP
		}
		mux.Handle(rt.path, guarded)
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errf(http.StatusNotFound, "not_found", "no API endpoint %s %s: see docs/api.md", r.Method, r.URL.Path))
	})
	s.webRoutes(mux)
	s.oidcRoutes(mux)
	return s.probes(s.secure(mux)) // probes: replicas.go
}
