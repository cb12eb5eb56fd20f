package server

import (
	"errors"
	"net/http"

	"github.com/tandem-agent/tandem/internal/tool"
)

// listTasks answers GET /api/sessions/{id}/tasks: the session's background
// tasks (shells, sub-agents), running and ended (docs/api.md).
func (s *Server) listTasks(w http.ResponseWriter, r *http.Request) {
	l, ok := s.liveFor(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tasks": l.Tasks()})
}

// stopTask answers POST /api/sessions/{id}/tasks/{task_id}/stop: the task
// stops, its end is reported to the model, and the answer is the task as
// it ended. The id is checked before any session is opened.
func (s *Server) stopTask(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("task_id")
	if err := tool.ValidTaskID(id); err != nil {
		writeError(w, errf(http.StatusBadRequest, "bad_task_id", "%v", err))
		return
	}
	l, ok := s.liveFor(w, r)
	if !ok {
		return
	}
	t, err := l.StopTask(id)
	switch {
	case errors.Is(err, tool.ErrUnknownTask):
		writeError(w, errf(http.StatusNotFound, "not_found", "%v", err))
	case errors.Is(err, tool.ErrTaskEnded), errors.Is(err, tool.ErrNotStoppable):
		writeError(w, errf(http.StatusConflict, "task_not_running", "%v", err))
	case err != nil:
		writeError(w, errf(http.StatusBadRequest, "bad_task_id", "%v", err))
	default:
		writeJSON(w, http.StatusOK, map[string]any{"task": t})
	}
}
