package server_test

import (
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/server"
)

// A client that stops reading while its buffers still take the writes (a
// few hundred KiB of events behind, keep-alives still "written") is
// dropped once it has acknowledged nothing for a keep-alive period.
func TestSSEStalledClientIsDropped(t *testing.T) {
	e, id := newUnreadStream(t, "for i in $(seq 1600); do echo line $i of a client that reads nothing; done", func(o *server.Options) {
		o.KeepAlive = 200 * time.Millisecond
	})
	if n := e.srv.SSEClients(id); n != 1 {
		t.Fatalf("%d clients", n)
	}
	e.send(id, "print a lot")
	deadline := time.Now().Add(60 * time.Second)
	for e.srv.SSEClients(id) != 0 {
		if time.Now().After(deadline) {
			var s sessionResp
			e.mustDo("GET", "/api/sessions/"+id, nil, 200, &s)
			t.Fatalf("a client that reads nothing is still streamed to (turn %s, %d messages)", s.Status, len(s.Messages))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
