package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
)

type hubFeed struct {
	h   *hub
	seq int64
}

func (f *hubFeed) emit(e event.Event) {
	f.seq++
	e.Seq = f.seq
	f.h.Emit(e)
}

func TestHubBoundsHeldBytes(t *testing.T) {
	f := &hubFeed{h: newHub(10000, 1<<20, 0, nil)}
	big := strings.Repeat("x", 100<<10)
	for i := 0; i < 100; i++ {
		f.emit(event.Event{Type: event.Text, Text: big})
	}
	if got := f.h.heldBytes(); got > 1<<20 {
		t.Fatalf("ring holds %d bytes, bound is %d", got, 1<<20)
	}
	if _, _, st := f.h.subscribe(1, 10, 1<<20, nil, nil); st != resumeGone {
		t.Errorf("resume from an evicted seq: state %v", st)
	}
	backlog, _, st := f.h.subscribe(f.h.floorSeq(), 10, 1<<20, nil, nil)
	if st != resumeOK || len(backlog) == 0 || backlog[len(backlog)-1].seq != f.seq {
		t.Fatalf("resume from the floor: state %v, %d frames", st, len(backlog))
	}
	if _, _, st := f.h.subscribe(f.seq+3, 10, 1<<20, nil, nil); st != resumeAhead {
		t.Errorf("resume ahead of the stream: state %v", st)
	}
}

// 100 MB of Bash output in 4 KiB chunks: the ring coalesces it into one
// frame with the tail, and the events around it stay resumable.
func TestHubCoalescesToolOutput(t *testing.T) {
	f := &hubFeed{h: newHub(10000, 8<<20, 0, nil)}
	f.emit(event.Event{Type: event.ToolUse, ToolUseID: "t1", ToolName: "Bash"})
	chunk := strings.Repeat("y", 4095) + "\n"
	for i := 0; i < 25000; i++ {
		f.emit(event.Event{Type: event.ToolOutput, ToolUseID: "t1", ToolName: "Bash", Stream: "stdout", Output: chunk})
	}
	f.emit(event.Event{Type: event.ToolOutput, ToolUseID: "t1", ToolName: "Bash", Stream: "stdout", Output: "LAST LINE\n"})
	f.emit(event.Event{Type: event.ToolResult, ToolUseID: "t1", ToolName: "Bash", Output: "(spilled)"})
	if got := f.h.heldBytes(); got > 3*maxCoalesced {
		t.Fatalf("ring holds %d bytes after 100 MB of output", got)
	}
	backlog, _, st := f.h.subscribe(0, 10, 8<<20, nil, nil)
	if st != resumeOK || len(backlog) != 3 {
		t.Fatalf("state %v, %d frames: want tool_use, one coalesced tool_output, tool_result", st, len(backlog))
	}
	var out event.Event
	if err := json.Unmarshal(eventJSON(backlog[1].data), &out); err != nil {
		t.Fatal(err)
	}
	if out.Type != event.ToolOutput || out.Seq != f.seq-1 || !strings.HasPrefix(out.Output, coalescedNote) || !strings.HasSuffix(out.Output, "LAST LINE\n") {
		t.Errorf("coalesced frame: seq %d, output %d bytes starting %q", out.Seq, len(out.Output), out.Output[:40])
	}
	// A client that saw part of the coalesced output resumes after it.
	backlog, _, _ = f.h.subscribe(100, 10, 8<<20, nil, nil)
	if len(backlog) != 1 || backlog[0].typ != event.ToolResult {
		t.Errorf("resume inside the coalesced output got %d frames", len(backlog))
	}
}

func TestHubDropsClientBehindByBytes(t *testing.T) {
	f := &hubFeed{h: newHub(10000, 8<<20, 0, nil)}
	kicked := 0
	_, c, _ := f.h.subscribe(0, 1000, 64<<10, func() { kicked++ }, nil)
	for i := 0; i < 20; i++ {
		f.emit(event.Event{Type: event.Text, Text: strings.Repeat("z", 8<<10)})
	}
	if f.h.clientCount() != 0 || kicked != 1 {
		t.Fatalf("a client 160 KiB behind a 64 KiB buffer: %d clients, kicked %d", f.h.clientCount(), kicked)
	}
	batch, ended := c.next(nil)
	n := len(batch)
	if !ended {
		t.Error("the dropped client's stream was not ended")
	}
	if n == 0 || n >= 20 {
		t.Errorf("client got %d frames before being dropped", n)
	}
}

// An idle client gets each event written by the emitter itself; while its
// stream writes (here: a keep-alive) events queue and follow in order; a
// direct write that fails drops the client.
func TestHubWritesDirectlyToAnIdleClient(t *testing.T) {
	f := &hubFeed{h: newHub(10000, 8<<20, 0, nil)}
	var direct []int64
	fail := false
	kicked := 0
	_, c, _ := f.h.subscribe(0, 100, 1<<20, func() { kicked++ }, func(fr frame) bool {
		if fail {
			return false
		}
		direct = append(direct, fr.seq)
		return true
	})
	f.emit(event.Event{Type: event.Text, Text: "during the backlog"}) // 1: the stream still owns the writes
	if len(direct) != 0 {
		t.Fatalf("written directly before the backlog was: %v", direct)
	}
	batch, _ := c.next(nil)
	if len(batch) != 1 || batch[0].seq != 1 {
		t.Fatalf("queued during the backlog: %d frames", len(batch))
	}
	if batch, _ = c.next(batch); len(batch) != 0 { // the stream goes idle
		t.Fatalf("%d frames left", len(batch))
	}
	f.emit(event.Event{Type: event.Text, Text: "a"}) // 2, 3: direct
	f.emit(event.Event{Type: event.Text, Text: "b"})
	if len(direct) != 2 || direct[0] != 2 || direct[1] != 3 {
		t.Fatalf("direct writes %v, want [2 3]", direct)
	}
	if !c.claim() {
		t.Fatal("an idle stream could not claim the connection")
	}
	f.emit(event.Event{Type: event.Text, Text: "c"}) // 4: queued behind the keep-alive
	if c.claim() {
		t.Error("claimed twice")
	}
	if batch, _ = c.next(batch); len(batch) != 1 || batch[0].seq != 4 || len(direct) != 2 {
		t.Fatalf("after a claim: %d queued, direct %v", len(batch), direct)
	}
	c.next(batch)
	fail = true
	f.emit(event.Event{Type: event.Text, Text: "d"})
	if f.h.clientCount() != 0 || kicked != 1 {
		t.Fatalf("a failed direct write: %d clients, kicked %d", f.h.clientCount(), kicked)
	}
	if _, ended := c.next(nil); !ended {
		t.Error("the dropped client's stream was not ended")
	}
}
