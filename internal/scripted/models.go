package scripted

import (
	"net/http"
	"strings"
	"time"
)

// modelEntry carries both the Anthropic and the OpenAI model fields so one
// endpoint satisfies either client.
type modelEntry struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at"`
	Object      string `json:"object"`
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
}

func newModelEntry(id string) modelEntry {
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return modelEntry{
		Type: "model", ID: id, DisplayName: id, CreatedAt: created.Format(time.RFC3339),
		Object: "model", Created: created.Unix(), OwnedBy: "scripted",
	}
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request, path string) {
	if _, id, ok := strings.Cut(path, "/models/"); ok && id != "" {
		writeJSON(w, http.StatusOK, newModelEntry(id))
		return
	}
	entries := make([]modelEntry, 0, len(s.cfg.models))
	for _, id := range s.cfg.models {
		entries = append(entries, newModelEntry(id))
	}
	resp := map[string]any{"object": "list", "data": entries, "has_more": false, "first_id": nil, "last_id": nil}
	if len(entries) > 0 {
		resp["first_id"], resp["last_id"] = entries[0].ID, entries[len(entries)-1].ID
	}
	writeJSON(w, http.StatusOK, resp)
}
