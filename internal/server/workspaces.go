package server

import "github.com/tandem-agent/tandem/internal/store"

// Workspaces is the registry of folders `tandem serve` lets agents run in:
// the server's own list, which no session owns, so the server holds the
// store's Workspaces contract for it. This file is the one place in the
// front ends that names internal/store (internal/frontends_test.go);
// sessions, their messages and sub-agents come from the session layer.
type Workspaces = store.Workspaces

func toWorkspaceJSON(w store.Workspace) workspaceJSON {
	return workspaceJSON{ID: w.ID, Path: w.Path, Name: w.Name, CreatedAt: w.CreatedAt}
}
