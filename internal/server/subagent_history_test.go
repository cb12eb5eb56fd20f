package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// nestedScript: the parent calls Agent (a1); the child calls Glob (g1)
// and reports.
func nestedScript() scripted.Script {
	return scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "look around", "prompt": "CHILD-TASK: list files"})),
			scripted.TextStep("Parent done."),
		},
		Threads: []scripted.Thread{{Match: "CHILD-TASK", Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("g1", "Glob", map[string]any{"pattern": "*"})),
			scripted.TextStep("CHILD-REPORT nothing here"),
		}}},
	}
}

// historyJSON is GET /api/sessions/{id} as far as these tests read it.
type historyJSON struct {
	ID              string            `json:"id"`
	ParentID        string            `json:"parent_id"`
	ParentToolUseID string            `json:"parent_tool_use_id"`
	Status          string            `json:"status"`
	LastSeq         int64             `json:"last_seq"`
	Messages        []message.Message `json:"messages"`
	Subagents       []historyJSON     `json:"subagents"`
}

func (e *env) history(id string) historyJSON {
	e.t.Helper()
	var h historyJSON
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &h)
	return h
}

// waitIdle polls the session until no turn runs and it holds n messages.
func (e *env) waitIdle(id string, n int) historyJSON {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		h := e.history(id)
		if h.Status == "idle" && len(h.Messages) == n {
			return h
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("session still %s with %d messages, want idle with %d", h.Status, len(h.Messages), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// steps lists a conversation's blocks as kind:detail, for comparing.
func steps(msgs []message.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case message.ToolUse:
				out = append(out, "tool_use:"+b.Name+":"+b.ID)
			case message.ToolResult:
				out = append(out, "tool_result:"+b.ToolUseID)
			case message.Text:
				if m.Role == message.Assistant {
					out = append(out, "text:"+b.Text)
				}
			}
		}
	}
	return out
}

// checkNested: the session's history carries the child's steps under the
// Agent call that started it.
func checkNested(t *testing.T, id string, h historyJSON) {
	t.Helper()
	if got := strings.Join(steps(h.Messages), " "); got != "tool_use:Agent:a1 tool_result:a1 text:Parent done." {
		t.Errorf("parent steps: %s", got)
	}
	if len(h.Subagents) != 1 {
		t.Fatalf("history has %d sub-agents, want the Agent call's one: %+v", len(h.Subagents), h.Subagents)
	}
	sub := h.Subagents[0]
	if sub.ParentID != id || sub.ParentToolUseID != "a1" {
		t.Errorf("sub-agent linked to session %q call %q, want %s and a1", sub.ParentID, sub.ParentToolUseID, id)
	}
	if got := strings.Join(steps(sub.Messages), " "); got != "tool_use:Glob:g1 tool_result:g1 text:CHILD-REPORT nothing here" {
		t.Errorf("sub-agent steps: %s", got)
	}
}

// After a turn has ended, the session's history (what a page that opens
// or reloads it reads) has the sub-agent's steps under its Agent call.
func TestSubagentHistoryAfterTurn(t *testing.T) {
	e := newEnv(t, nestedScript())
	id := e.newSession()
	e.send(id, "look around")
	checkNested(t, id, e.waitIdle(id, 4))
	// The listing names the call too.
	var list struct{ Sessions []historyJSON }
	e.mustDo("GET", "/api/sessions", nil, 200, &list)
	var linked int
	for _, s := range list.Sessions {
		if s.ParentID == id && s.ParentToolUseID == "a1" {
			linked++
		}
	}
	if linked != 1 {
		t.Errorf("the listing has %d sub-agent sessions linked to a1: %+v", linked, list.Sessions)
	}
	// docs/api.md's example has the response's shape: every key it shows
	// is where the server puts it.
	_, real := e.do("GET", "/api/sessions/"+id, nil)
	docShape(t, "### Sub-agents in history", real)
}

// docShape checks real against the first JSON example after heading in
// docs/api.md: every key the example shows is where the server puts it.
func docShape(t *testing.T, heading string, real []byte) {
	t.Helper()
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), heading+"\n")
	if !ok {
		t.Fatalf("docs/api.md has no %q", heading)
	}
	_, block, _ := strings.Cut(after, "```json\n")
	block, _, _ = strings.Cut(block, "```")
	var want, got any
	if err := json.Unmarshal([]byte(block), &want); err != nil {
		t.Fatalf("docs/api.md example under %q: %v", heading, err)
	}
	if err := json.Unmarshal(real, &got); err != nil {
		t.Fatal(err)
	}
	sameShape(t, "$", want, got)
}

// sameShape fails where doc has a key, or an array element, that got has
// not at the same path.
func sameShape(t *testing.T, path string, doc, got any) {
	t.Helper()
	switch d := doc.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: documented as an object, the server sends %T", path, got)
			return
		}
		for k, v := range d {
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s.%s is documented but not sent", path, k)
				continue
			}
			sameShape(t, path+"."+k, v, gv)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(d) {
			t.Errorf("%s: documented as %d elements, the server sends %v", path, len(d), got)
			return
		}
		for i := range d {
			sameShape(t, fmt.Sprintf("%s[%d]", path, i), d[i], g[i])
		}
	}
}

// A new server over the same database (tandem serve restarted) gives the
// same nested history.
func TestSubagentHistoryAfterRestart(t *testing.T) {
	e := newEnv(t, nestedScript())
	id := e.newSession()
	e.send(id, "look around")
	e.waitIdle(id, 4)
	e.restart()
	checkNested(t, id, e.waitIdle(id, 4))
}

// In the middle of a later turn, the history has the finished turn's
// sub-agent, not the one still running (whose steps come with the
// replayed events, marked with its call), so a reload shows each once.
func TestSubagentHistoryMidTurn(t *testing.T) {
	script := scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "look around", "prompt": "CHILD-TASK: list files"})),
			scripted.TextStep("Parent done."),
			scripted.ToolStep(scripted.CallID("a2", "Agent", map[string]any{"description": "write", "prompt": "CHILD-WRITE: write a file"})),
			scripted.TextStep("Second done."),
		},
		Threads: []scripted.Thread{
			{Match: "CHILD-TASK", Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("g1", "Glob", map[string]any{"pattern": "*"})),
				scripted.TextStep("CHILD-REPORT nothing here"),
			}},
			{Match: "CHILD-WRITE", Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("w2", "Write", map[string]any{"file_path": "out.txt", "content": "x\n"})),
				scripted.TextStep("WRITE-REPORT done"),
			}},
		},
	}
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.AskTools = []string{"Write"} })
	id := e.newSession()
	e.send(id, "look around")
	e.waitIdle(id, 4)

	live, stop := e.stream(id, "")
	defer stop()
	e.send(id, "now write")
	// The child waits for an answer: the turn is held in the middle.
	req := until(t, live, isType(event.PermissionRequest))
	ask := req[len(req)-1].Event
	if ask.ToolUseID != "w2" {
		t.Fatalf("permission request for %s, want the child's Write", ask.ToolUseID)
	}
	h := e.history(id)
	if h.Status != "running" {
		t.Fatalf("status %q while the child waits", h.Status)
	}
	checkNested(t, id, h)

	// A page reloading now resumes after last_seq: the running child's
	// steps arrive as events under a2.
	replay, stopReplay := e.stream(id, itoa(h.LastSeq))
	defer stopReplay()
	evs := until(t, replay, isType(event.PermissionRequest))
	var nested []string
	for _, ev := range evs {
		if ev.Event.ParentToolUseID != "" && ev.Event.Type == event.ToolUse {
			nested = append(nested, ev.Event.ParentToolUseID+">"+ev.Event.ToolUseID)
		}
	}
	if strings.Join(nested, " ") != "a2>w2" {
		t.Errorf("replayed nested calls %v, want a2>w2", nested)
	}
	e.mustDo("POST", "/api/permissions/"+ask.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
	h = e.waitIdle(id, 8)
	if len(h.Subagents) != 2 || h.Subagents[1].ParentToolUseID != "a2" {
		t.Fatalf("after the turn: sub-agents %+v", h.Subagents)
	}
	if got := strings.Join(steps(h.Subagents[1].Messages), " "); got != "tool_use:Write:w2 tool_result:w2 text:WRITE-REPORT done" {
		t.Errorf("second sub-agent steps: %s", got)
	}
}

// The page opens a new session's stream after the last_seq the session's
// JSON gives. Events emitted while the session was being opened (here the
// warning about a skill file with a bad field) must not make that point
// look ahead of the stream: it was refused with reload_required, and the
// page reloaded in a loop until the first turn's events, a reload landing
// after the turn showing stored history (TestBrowserCommandsAndNestedSubagent's
// flake: the Agent card without the child's steps).
func TestStreamResumesRightAfterCreate(t *testing.T) {
	e := newEnv(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	writeExtensions(t, e.ws)
	var s sessionResp
	e.mustDo("POST", "/api/sessions", map[string]string{"cwd": e.ws}, 201, &s)
	h := e.history(s.ID)
	if h.LastSeq == 0 {
		t.Fatal("opening the session emitted nothing: the test no longer covers events emitted while a session opens")
	}
	ch, stop := e.stream(s.ID, itoa(h.LastSeq))
	defer stop()
	e.send(s.ID, "hello")
	evs := until(t, ch, isType(event.Result))
	if first := evs[0].Event; first.Type != event.Status || first.Subtype != server.SubtypeUserMessage {
		raw, _ := json.Marshal(first)
		t.Fatalf("first event after last_seq %d: %s", h.LastSeq, raw)
	}
	contiguous(t, evs, h.LastSeq+1)
}
