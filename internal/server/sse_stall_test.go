package server_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// A client that stops reading while its buffers still take the writes (a
// few hundred KiB of events behind, keep-alives still "written") is
// dropped once it has acknowledged nothing for a keep-alive period.
func TestSSEStalledClientIsDropped(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "for i in $(seq 1600); do echo line $i of a client that reads nothing; done"})),
		scripted.TextStep("printed"),
	}}
	e := newEnv(t, script, func(o *server.Options, c *servertest.Config) {
		c.NoPermissions = true
		o.KeepAlive = 200 * time.Millisecond
	})
	id := e.newSession()
	host := strings.TrimPrefix(e.ts.URL, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096)
	}
	fmt.Fprintf(conn, "GET /api/sessions/%s/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", id, host, testToken)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v %v", resp, err)
	}
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
