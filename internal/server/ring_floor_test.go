package server_test

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// ringFloorRing is the ring size these tests give the server: smaller
// than the running turn's events, so the ring drops the turn's start.
const ringFloorRing = 16

// longTurnScript: a first turn that ends; then a second whose streamed
// text (many small chunks: many events) fills the ring before its Write
// waits for permission, holding the turn open.
// longTurnText is the second turn's text, streamed four bytes an event.
var longTurnText = strings.Repeat("lots of words ", 20) + "END-OF-TEXT"

func longTurnScript() scripted.Script {
	return scripted.Script{
		ChunkSize: 4,
		Steps: []scripted.Step{
			scripted.TextStep("First done."),
			scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "out.txt", "content": "x\n"})).
				WithText(longTurnText),
			scripted.TextStep("Second done."),
		},
	}
}

func ringFloorEnv(t *testing.T) *env {
	return newEnv(t, longTurnScript(), func(o *server.Options, c *servertest.Config) {
		o.RingSize = ringFloorRing
		c.AskTools = []string{"Write"}
	})
}

// reloadRefused opens the stream after seq and reports whether the server
// answered reload_required (and ended the stream).
func (e *env) reloadRefused(id string, after int64) bool {
	e.t.Helper()
	ch, stop := e.stream(id, itoa(after))
	defer stop()
	ev, ok := <-ch
	if !ok {
		e.t.Fatalf("stream after %d ended without an event", after)
	}
	if ev.Event.Type == event.Status && ev.Event.Subtype == server.SubtypeReloadRequired {
		if _, more := <-ch; more {
			e.t.Fatalf("stream after %d went on after reload_required", after)
		}
		return true
	}
	return false
}

// A client reloading in the middle of a turn whose first events the ring
// has dropped: resuming from the session's last_seq is refused every time
// (that was the web page's reload loop), and the session JSON's
// stream_floor says where it can resume instead, with the gap it leaves.
// Once the turn ends the stored messages have all of it again.
func TestReloadMidTurnPastRingFloor(t *testing.T) {
	e := ringFloorEnv(t)
	id := e.newSession()
	e.send(id, "first")
	e.waitIdle(id, 2)

	live, stopLive := e.stream(id, "")
	defer stopLive()
	e.send(id, "second")
	req := until(t, live, isType(event.PermissionRequest))
	stopLive()
	ask := req[len(req)-1].Event
	if len(req) <= ringFloorRing {
		t.Fatalf("the turn emitted only %d events before asking: the ring (%d) still holds them all", len(req), ringFloorRing)
	}

	// What the page did: GET the session, resume after its last_seq,
	// get reload_required, again and again while the turn waits.
	var h historyJSON
	var floor int64
	for range 3 {
		var s struct {
			historyJSON
			StreamFloor   int64  `json:"stream_floor"`
			RunningPrompt string `json:"running_prompt"`
		}
		e.mustDo("GET", "/api/sessions/"+id, nil, 200, &s)
		h, floor = s.historyJSON, s.StreamFloor
		if h.Status != "running" {
			t.Fatalf("status %q while the Write waits", h.Status)
		}
		// The turn's user_message event is gone from the ring; the JSON
		// still says what the turn was asked.
		if s.RunningPrompt != "second" {
			t.Fatalf("running_prompt %q, want the running turn's %q", s.RunningPrompt, "second")
		}
		if !e.reloadRefused(id, h.LastSeq) {
			t.Fatalf("resuming after last_seq %d was accepted: the ring still holds the turn's start", h.LastSeq)
		}
	}
	if floor <= h.LastSeq {
		t.Fatalf("stream_floor %d with last_seq %d: the session JSON does not say where the stream can resume", floor, h.LastSeq)
	}
	// docs/api.md's example has the response's shape.
	_, real := e.do("GET", "/api/sessions/"+id, nil)
	docShape(t, "### Reloading after the ring dropped part of the running turn", real)
	// Older than the floor is still refused; the floor itself resumes,
	// with the turn's newest events up to the waiting Write.
	if !e.reloadRefused(id, floor-1) {
		t.Errorf("resuming after %d, below stream_floor %d, was accepted", floor-1, floor)
	}
	ch, stop := e.stream(id, itoa(floor))
	defer stop()
	evs := until(t, ch, isType(event.PermissionRequest))
	contiguous(t, evs, floor+1)
	if got := evs[len(evs)-1].Event.RequestID; got != ask.RequestID {
		t.Errorf("resumed stream asks %s, want the waiting request %s", got, ask.RequestID)
	}

	e.mustDo("POST", "/api/permissions/"+ask.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
	until(t, ch, isType(event.Result))
	var done struct {
		historyJSON
		StreamFloor   *int64  `json:"stream_floor"`
		RunningPrompt *string `json:"running_prompt"`
	}
	e.waitIdle(id, 6)
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &done)
	if done.StreamFloor != nil {
		t.Errorf("idle session still has stream_floor %d", *done.StreamFloor)
	}
	if done.RunningPrompt != nil {
		t.Errorf("idle session still has running_prompt %q", *done.RunningPrompt)
	}
	if got := strings.Join(steps(done.Messages), " "); !strings.Contains(got, "END-OF-TEXT tool_use:Write:w1 tool_result:w1 text:Second done.") {
		t.Errorf("stored messages after the turn: %s", got)
	}
}
