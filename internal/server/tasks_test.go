package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// bgScript: the parent starts a background agent that waits for a gate
// file, and ends its turn; the next turn reads the report; the third
// starts one that never ends by itself, which the user stops.
func bgScript(gate string) scripted.Script {
	wait := "while [ ! -e " + gate + " ]; do sleep 0.05; done; echo gate open"
	return scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "wait for the gate", "prompt": "CHILD-GATE: wait", "run_in_background": true})),
			scripted.TextStep("Parent goes on."),
			scripted.TextStep("Parent read the report."),
			scripted.ToolStep(scripted.CallID("a2", "Agent", map[string]any{"description": "wait forever", "prompt": "CHILD-FOREVER: wait", "run_in_background": true})),
			scripted.TextStep("Started another."),
			scripted.TextStep("Noted the stop."),
		},
		Threads: []scripted.Thread{
			{Match: "CHILD-GATE", Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": wait})),
				scripted.TextStep("CHILD-REPORT the gate opened"),
			}},
			{Match: "CHILD-FOREVER", Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("b2", "Bash", map[string]any{"command": "sleep 300"})),
				scripted.TextStep("never reached"),
			}},
		},
	}
}

type tasksJSON struct {
	Tasks []event.Task `json:"tasks"`
}

func (e *env) tasks(id string) []event.Task {
	e.t.Helper()
	var out tasksJSON
	e.mustDo("GET", "/api/sessions/"+id+"/tasks", nil, 200, &out)
	return out.Tasks
}

// userText is the text of a stored user message.
func userText(m message.Message) string {
	var b strings.Builder
	for _, bl := range m.Content {
		if bl.Type == message.Text {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// A background sub-agent outlives its parent's turn; its report reaches
// the parent with the next prompt; the API lists it, stops another, and
// refuses bad ids.
func TestBackgroundAgentThroughTheAPI(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	e := newEnv(t, bgScript(gate))
	var s sessionResp
	e.mustDo("POST", "/api/sessions", map[string]string{"cwd": e.ws, "mode": "trust"}, 201, &s)
	id := s.ID

	e.send(id, "start it")
	e.waitIdle(id, 4) // prompt, Agent call, its result, "Parent goes on."
	ts := e.tasks(id)
	if len(ts) != 1 || ts[0].ID != "agent_1" || ts[0].Status != event.TaskRunning || ts[0].Kind != event.TaskAgent || ts[0].ToolUseID != "a1" {
		t.Fatalf("tasks after the parent's turn ended: %+v", ts)
	}

	// Ids are checked where they enter.
	if code, body := e.do("POST", "/api/sessions/"+id+"/tasks/BAD!/stop", nil); code != 400 || errCode(t, body) != "bad_task_id" {
		t.Errorf("bad id: %d %s", code, body)
	}
	if code, body := e.do("POST", "/api/sessions/"+id+"/tasks/agent_9/stop", nil); code != 404 {
		t.Errorf("unknown id: %d %s", code, body)
	}
	if code, body := e.do("GET", "/api/sessions/ses_nope/tasks", nil); code != 404 && code != 400 {
		t.Errorf("unknown session: %d %s", code, body)
	}

	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for ts = e.tasks(id); ts[0].Status == event.TaskRunning; ts = e.tasks(id) {
		if time.Now().After(deadline) {
			t.Fatal("the background agent did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ts[0].Status != event.TaskCompleted || !strings.Contains(ts[0].Summary, "CHILD-REPORT") || ts[0].SessionID == "" {
		t.Errorf("ended task: %+v", ts[0])
	}
	if code, body := e.do("POST", "/api/sessions/"+id+"/tasks/agent_1/stop", nil); code != 409 {
		t.Errorf("stopping an ended task: %d %s", code, body)
	}

	// The report goes to the model with the next prompt.
	e.send(id, "what did it find?")
	h := e.waitIdle(id, 6)
	if got := userText(h.Messages[4]); !strings.Contains(got, "what did it find?") || !strings.Contains(got, "CHILD-REPORT the gate opened") ||
		!strings.Contains(got, "agent_1") {
		t.Errorf("the next prompt should carry the report:\n%s", got)
	}

	// One that never ends by itself is stopped by the user; the model is told.
	e.send(id, "another")
	e.waitIdle(id, 10)
	var stopped struct {
		Task event.Task `json:"task"`
	}
	e.mustDo("POST", "/api/sessions/"+id+"/tasks/agent_2/stop", nil, 200, &stopped)
	if stopped.Task.Status != event.TaskStopped || stopped.Task.Summary != "stopped by the user" {
		t.Errorf("stopped: %+v", stopped.Task)
	}
	e.send(id, "and now?")
	h = e.waitIdle(id, 12)
	if got := userText(h.Messages[10]); !strings.Contains(got, "agent_2") || !strings.Contains(got, "was stopped by the user") {
		t.Errorf("the stop should reach the model:\n%s", got)
	}
}

// A background agent still running when the server stops is stopped with
// the session, and that end reaches the model after the restart.
func TestBackgroundAgentStoppedWithTheServer(t *testing.T) {
	e := newEnv(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "wait forever", "prompt": "CHILD-FOREVER: wait", "run_in_background": true})),
			scripted.TextStep("Started."),
			scripted.TextStep("Heard of the stop."),
		},
		Threads: []scripted.Thread{{Match: "CHILD-FOREVER", Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "sleep 300"})),
			scripted.TextStep("never reached"),
		}}},
	})
	var s sessionResp
	e.mustDo("POST", "/api/sessions", map[string]string{"cwd": e.ws, "mode": "trust"}, 201, &s)
	e.send(s.ID, "start it")
	e.waitIdle(s.ID, 4)
	if ts := e.tasks(s.ID); len(ts) != 1 || ts[0].Status != event.TaskRunning {
		t.Fatalf("tasks: %+v", ts)
	}
	e.restart()
	e.send(s.ID, "after the restart")
	h := e.waitIdle(s.ID, 6)
	if got := userText(h.Messages[4]); !strings.Contains(got, "agent_1") || !strings.Contains(got, "stopped because the session ended") {
		t.Errorf("the stop at the server's end should reach the model:\n%s", got)
	}
}
