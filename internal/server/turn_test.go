package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

func TestWorkspaceEnforced(t *testing.T) {
	e := newEnv(t, textScript())
	outside := t.TempDir()
	code, data := e.do("POST", "/api/sessions", map[string]string{"cwd": outside})
	if code != 403 || errCode(t, data) != "workspace_not_registered" || !strings.Contains(string(data), "register") {
		t.Fatalf("outside workspace: %d %s", code, data)
	}
	code, data = e.do("POST", "/api/sessions", map[string]string{"cwd": "relative/path"})
	if code != 400 {
		t.Fatalf("relative cwd: %d %s", code, data)
	}
	// A sub-folder of a workspace is inside it.
	sub := filepath.Join(e.ws, "sub")
	os.Mkdir(sub, 0o755)
	e.mustDo("POST", "/api/sessions", map[string]string{"cwd": sub}, 201, nil)

	// Once the workspace is removed, its sessions may no longer run.
	id := e.newSession()
	var list struct {
		Workspaces []struct{ ID, Path string }
	}
	e.mustDo("GET", "/api/workspaces", nil, 200, &list)
	if len(list.Workspaces) != 1 || list.Workspaces[0].Path != e.ws {
		t.Fatalf("workspaces: %+v", list)
	}
	e.mustDo("DELETE", "/api/workspaces/"+list.Workspaces[0].ID, nil, 204, nil)
	code, data = e.do("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "hi"})
	if code != 403 || errCode(t, data) != "workspace_not_registered" {
		t.Fatalf("message after workspace removal: %d %s", code, data)
	}
	code, data = e.do("POST", "/api/workspaces", map[string]string{"path": filepath.Join(e.ws, "missing")})
	if code != 400 {
		t.Fatalf("missing folder: %d %s", code, data)
	}
}

func TestTurnWithSeveralClients(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ThinkingStep("Let me think.", "Hello **world**.").WithUsage(scripted.Usage{InputTokens: 100, OutputTokens: 20}),
	}}
	e := newEnv(t, script)
	id := e.newSession()
	a, stopA := e.stream(id, "")
	defer stopA()
	b, stopB := e.stream(id, "")
	defer stopB()
	time.Sleep(50 * time.Millisecond) // both subscribed before the turn starts
	resp := e.send(id, "say hello")
	if resp["queued"] != false {
		t.Fatalf("first message queued: %v", resp)
	}
	ga := until(t, a, isType(event.Result))
	gb := until(t, b, isType(event.Result))
	contiguous(t, ga, 1)
	if len(ga) != len(gb) {
		t.Fatalf("clients got %d and %d events", len(ga), len(gb))
	}
	if ga[0].Event.Type != event.Status || ga[0].Event.Subtype != server.SubtypeUserMessage || ga[0].Event.Text != "say hello" {
		t.Fatalf("first event: %+v", ga[0].Event)
	}
	var text strings.Builder
	for _, ev := range ga {
		if ev.Event.Type == event.Text {
			text.WriteString(ev.Event.Text)
		}
	}
	if text.String() != "Hello **world**." {
		t.Fatalf("text %q", text.String())
	}
	res := ga[len(ga)-1].Event
	if res.Subtype != event.SubtypeSuccess || res.Usage == nil || res.Usage.InputTokens != 100 {
		t.Fatalf("result: %+v", res)
	}
	until(t, a, isType(event.Done))

	var s sessionResp
	waitIdle(t, e, id, &s)
	if len(s.Messages) != 2 || s.Usage.InputTokens != 100 || s.Cost == nil || *s.Cost <= 0 {
		t.Fatalf("session after turn: %d messages, usage %+v cost %v", len(s.Messages), s.Usage, s.Cost)
	}
	var u struct {
		Usage message.Usage `json:"usage"`
		Cost  *float64      `json:"total_cost_usd"`
	}
	e.mustDo("GET", "/api/sessions/"+id+"/usage", nil, 200, &u)
	if u.Usage.OutputTokens != 20 || u.Cost == nil {
		t.Fatalf("usage: %+v", u)
	}
	var list struct{ Sessions []sessionResp }
	e.mustDo("GET", "/api/sessions?cwd="+e.ws, nil, 200, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != id {
		t.Fatalf("list by cwd: %+v", list)
	}
	e.mustDo("GET", "/api/sessions?cwd=/elsewhere", nil, 200, &list)
	if len(list.Sessions) != 0 {
		t.Fatalf("list by other cwd: %+v", list)
	}
}

// waitIdle polls the session until no turn runs.
func waitIdle(t *testing.T, e *env, id string, out *sessionResp) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		e.mustDo("GET", "/api/sessions/"+id, nil, 200, out)
		if out.Status == "idle" {
			return
		}
	}
	t.Fatal("session still running")
}

func TestQueuedMessagesRunInOrder(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{slowText(10)}, Fallback: &scripted.Step{Text: "ok"}}
	e := newEnv(t, script)
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	first := e.send(id, "one")
	if first["queued"] != false {
		t.Fatalf("first: %v", first)
	}
	for i, text := range []string{"two", "three"} {
		r := e.send(id, text)
		if r["queued"] != true || r["position"] != float64(i+1) {
			t.Fatalf("%s: %v", text, r)
		}
	}
	var prompts []string
	for len(prompts) < 3 {
		evs := until(t, ch, isType(event.Result))
		for _, ev := range evs {
			if ev.Event.Subtype == server.SubtypeUserMessage {
				prompts = append(prompts, ev.Event.Text)
			}
		}
	}
	if strings.Join(prompts, ",") != "one,two,three" {
		t.Fatalf("turn order %v", prompts)
	}
	var s sessionResp
	waitIdle(t, e, id, &s)
	var users []string
	for _, raw := range s.Messages {
		var m message.Message
		json.Unmarshal(raw, &m)
		if m.Role == message.User && m.PlainText() != "" {
			users = append(users, m.PlainText())
		}
	}
	if strings.Join(users, ",") != "one,two,three" {
		t.Fatalf("stored prompts %v", users)
	}
}

func TestResumeWithLastEventID(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{slowText(5)}}
	e := newEnv(t, script, func(o *server.Options, _ *servertest.Config) { o.RingSize = 100 })
	id := e.newSession()
	full, stopFull := e.stream(id, "")
	defer stopFull()
	part, stopPart := e.stream(id, "")
	e.send(id, "go")
	// The second client reads a few events, then goes away mid-turn.
	got := until(t, part, func(ev event.Event) bool { return ev.Type == event.Text })
	stopPart()
	lastID := got[len(got)-1].ID
	all := until(t, full, isType(event.Done))
	contiguous(t, all, 1)

	// Reconnecting with Last-Event-ID gets exactly the missed events.
	again, stopAgain := e.stream(id, lastID)
	defer stopAgain()
	rest := until(t, again, isType(event.Done))
	n, _ := strconv.ParseInt(lastID, 10, 64)
	contiguous(t, rest, n+1)
	if len(got)+len(rest) != len(all) {
		t.Fatalf("first part %d + resumed %d != %d", len(got), len(rest), len(all))
	}

	// A seq older than the ring holds asks the client to reload.
	for i := 0; i < 30; i++ {
		e.send(id, "more")
		until(t, full, isType(event.Done))
	}
	old, stopOld := e.stream(id, "1")
	defer stopOld()
	ev := <-old
	if ev.Event.Type != event.Status || ev.Event.Subtype != server.SubtypeReloadRequired || ev.ID != "" {
		t.Fatalf("old resume point: %+v", ev)
	}
	if _, open := <-old; open {
		t.Fatal("stream stays open after reload_required")
	}
}

func TestReloadMidTurnLosesNothing(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "a.txt", "content": "x"})),
		slowText(5),
	}}
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.NoPermissions = true })
	id := e.newSession()
	live, stop := e.stream(id, "")
	defer stop()
	e.send(id, "go")
	// Wait until the tool step is stored and the slow text is streaming.
	until(t, live, isType(event.ToolResult))
	until(t, live, isType(event.Text))
	var s sessionResp
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &s)
	if s.Status != "running" {
		t.Fatal("turn already over; make the step slower")
	}
	// The snapshot holds the messages before the turn; the stream from its
	// last_seq rebuilds the turn, starting with the prompt.
	if len(s.Messages) != 0 {
		t.Fatalf("snapshot mid-turn has %d messages", len(s.Messages))
	}
	resumed, stopR := e.stream(id, strconv.FormatInt(s.LastSeq, 10))
	defer stopR()
	evs := until(t, resumed, isType(event.Done))
	contiguous(t, evs, s.LastSeq+1)
	if evs[0].Event.Subtype != server.SubtypeUserMessage {
		t.Fatalf("resumed stream starts with %+v", evs[0].Event)
	}
}

func TestInterrupt(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{slowText(50)}}
	e := newEnv(t, script)
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "go")
	e.send(id, "queued")
	until(t, ch, isType(event.Text))
	var r map[string]any
	e.mustDo("POST", "/api/sessions/"+id+"/interrupt", nil, 200, &r)
	if r["interrupted"] != true || r["dropped_queued"] != float64(1) {
		t.Fatalf("interrupt: %v", r)
	}
	evs := until(t, ch, isType(event.Result))
	if res := evs[len(evs)-1].Event; res.Subtype != event.SubtypeInterrupted {
		t.Fatalf("result %+v", res)
	}
	var s sessionResp
	waitIdle(t, e, id, &s)
	e.mustDo("POST", "/api/sessions/"+id+"/interrupt", nil, 200, &r)
	if r["interrupted"] != false {
		t.Fatalf("interrupt when idle: %v", r)
	}
}

func TestPermissionReply(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "approved\n"})),
		scripted.TextStep("Wrote it."),
	}}
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.AskTools = []string{"Write"} })
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "write the file")
	evs := until(t, ch, isType(event.PermissionRequest))
	req := evs[len(evs)-1].Event
	if req.RequestID == "" || req.ToolName != "Write" {
		t.Fatalf("request %+v", req)
	}
	other := e.newSession()
	if code, data := e.do("POST", "/api/sessions/"+other+"/permissions/"+req.RequestID, map[string]string{"decision": "allow_once"}); code != 404 || errCode(t, data) != "not_found" {
		t.Fatalf("answer through another session: %d %s", code, data)
	}
	if code, data := e.do("POST", "/api/sessions/..%2f/permissions/"+req.RequestID, map[string]string{"decision": "allow_once"}); code != 400 {
		t.Fatalf("answer through a bad session id: %d %s", code, data)
	}
	path := "/api/sessions/" + id + "/permissions/" + req.RequestID
	e.mustDo("POST", path, map[string]string{"decision": "allow_once"}, 200, nil)
	if code, data := e.do("POST", "/api/permissions/"+req.RequestID, map[string]string{"decision": "deny"}); code != 409 {
		t.Fatalf("the old path after the answer: %d %s", code, data)
	}
	code, data := e.do("POST", path, map[string]string{"decision": "deny"})
	if code != 409 || errCode(t, data) != "already_answered" {
		t.Fatalf("second reply: %d %s", code, data)
	}
	evs = until(t, ch, isType(event.Result))
	var reply *event.Event
	for i := range evs {
		if evs[i].Event.Type == event.PermissionReply {
			reply = &evs[i].Event
		}
	}
	if reply == nil || reply.Decision != "allow_once" {
		t.Fatalf("no permission_reply: %+v", evs)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "out.txt")); err != nil || string(b) != "approved\n" {
		t.Fatalf("file: %q %v", b, err)
	}
	code, _ = e.do("POST", path, map[string]string{"decision": "deny"})
	if code != 409 {
		t.Fatalf("reply after the turn: %d", code)
	}
}

func TestPatchSession(t *testing.T) {
	e := newEnv(t, textScript())
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	var s sessionResp
	e.mustDo("PATCH", "/api/sessions/"+id, map[string]string{"mode": "trust", "model": "scripted/other", "runtime": "auto"}, 200, &s)
	if s.Mode != "trust" || s.Model != "scripted/other" || s.Runtime != "auto" {
		t.Fatalf("after patch: %+v", s)
	}
	evs := until(t, ch, isType(event.ModeChanged))
	if ev := evs[len(evs)-1].Event; ev.Mode != "trust" || ev.PreviousMode != "normal" {
		t.Fatalf("mode_changed %+v", ev)
	}
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &s)
	if s.Mode != "trust" || s.LastSeq != evs[len(evs)-1].Event.Seq {
		t.Fatalf("stored: %+v", s)
	}
	for _, body := range []map[string]string{{"runtime": "cobol"}, {"mode": "yolo"}, {"model": " "}} {
		code, data := e.do("PATCH", "/api/sessions/"+id, body)
		if code != 400 {
			t.Fatalf("%v: %d %s", body, code, data)
		}
	}
}

func TestDeleteSession(t *testing.T) {
	e := newEnv(t, scripted.Script{Steps: []scripted.Step{slowText(20)}})
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "go")
	until(t, ch, isType(event.Text))
	e.mustDo("DELETE", "/api/sessions/"+id, nil, 204, nil)
	e.mustDo("GET", "/api/sessions/"+id, nil, 404, nil)
}

func TestKeepAlive(t *testing.T) {
	e := newEnv(t, textScript(), func(o *server.Options, _ *servertest.Config) { o.KeepAlive = 30 * time.Millisecond })
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	evs := until(t, ch, isType(event.KeepAlive))
	if evs[0].ID != "" || evs[0].Event.SessionID != id {
		t.Fatalf("keep_alive %+v", evs[0])
	}
}

func TestGracefulShutdownMidTurn(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "a.txt", "content": "x"})),
		slowText(50),
	}}
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.NoPermissions = true })
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "go")
	until(t, ch, isType(event.ToolResult))
	until(t, ch, isType(event.Text))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	// The stream got the turn's end and then closed.
	var last event.Event
	sawResult := false
	for ev := range ch {
		last = ev.Event
		if ev.Event.Type == event.Result {
			sawResult = true
			if ev.Event.Subtype != event.SubtypeInterrupted {
				t.Fatalf("result %+v", ev.Event)
			}
		}
	}
	if !sawResult {
		t.Fatal("no result event before the stream closed")
	}
	rec, err := e.stack.App.Store.GetSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.LastSeq != last.Seq {
		t.Fatalf("stored last_seq %d, last event %d", rec.LastSeq, last.Seq)
	}
	msgs, _ := e.stack.App.Store.Messages(context.Background(), id)
	// user prompt, assistant tool call, tool result at least; every
	// tool_use has its result.
	if len(msgs) < 3 {
		t.Fatalf("stored %d messages", len(msgs))
	}
	uses, results := 0, 0
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case message.ToolUse:
				uses++
			case message.ToolResult:
				results++
			}
		}
	}
	if uses != results {
		t.Fatalf("%d tool uses, %d results", uses, results)
	}
	code, data := e.do("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "more"})
	if code != 503 {
		t.Fatalf("message after shutdown: %d %s", code, data)
	}
}

func TestPerTurnOptions(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "x.txt"})),
		scripted.TextStep("never reached"),
	}}
	e := newEnv(t, script)
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.mustDo("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "go", "max_turns": -1}, 400, nil)
	e.mustDo("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "go", "max_turns": 1}, 202, nil)
	evs := until(t, ch, isType(event.Result))
	res := evs[len(evs)-1].Event
	if res.Subtype != event.SubtypeMaxTurns || res.NumTurns != 1 {
		t.Fatalf("result %+v", res)
	}
}

// max_budget_usd: the first step (a million input tokens at
// claude-sonnet-4-5's $3) spends the $2 budget, so the turn stops before
// a second call.
func TestPerTurnBudget(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "x.txt"})).WithUsage(scripted.Usage{InputTokens: 1_000_000}),
		scripted.TextStep("never reached"),
	}}
	e := newEnv(t, script)
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	code, body := e.do("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "go", "max_budget_usd": -1})
	if code != 400 || !strings.Contains(string(body), "bad_max_budget_usd") {
		t.Fatalf("negative budget: %d %s", code, body)
	}
	e.mustDo("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "go", "max_budget_usd": 2}, 202, nil)
	evs := until(t, ch, isType(event.Result))
	res := evs[len(evs)-1].Event
	if res.Subtype != event.SubtypeMaxBudget || res.NumTurns != 1 || !strings.Contains(res.Error, "of the $2.00 budget") {
		t.Fatalf("result %+v", res)
	}
}
