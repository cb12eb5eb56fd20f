package event

import "time"

// Task is a session's background task as front ends list it (the
// background_task event, GET /api/sessions/{id}/tasks, /tasks): a shell
// started with run_in_background or a background sub-agent.
type Task struct {
	// ID names the task to stop it: "bash_3", "agent_2" (tool.ValidTaskID).
	ID string `json:"id"`
	// Kind is TaskShell or TaskAgent.
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
	// Status is TaskRunning until it ends, then TaskCompleted, TaskFailed
	// or TaskStopped.
	Status string `json:"status"`
	// ToolUseID is the call that started it (a sub-agent's events carry it
	// as parent_tool_use_id).
	ToolUseID string    `json:"tool_use_id,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
	// Summary says how it ended ("exited with code 1", "stopped by the
	// user", the first line of an agent's report).
	Summary string `json:"summary,omitempty"`
	// Stoppable is false for a task tandem can list but not stop (the
	// Claude Code CLI's own).
	Stoppable bool `json:"stoppable"`
	// SessionID is a sub-agent's own stored session.
	SessionID string `json:"agent_session_id,omitempty"`
}

// Task kinds and statuses.
const (
	TaskShell = "shell"
	TaskAgent = "agent"

	TaskRunning   = "running"
	TaskCompleted = "completed"
	TaskFailed    = "failed"
	TaskStopped   = "stopped"
)
