package server_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// newUnreadStream starts a server whose scripted model has Bash run
// command and then answers "printed", applies opt to its options, makes a
// session and opens that session's event stream on a raw connection with
// a tiny receive window that nothing reads, so the server's writes back up
// soon. The connection closes when the test ends.
func newUnreadStream(t *testing.T, command string, opt func(*server.Options)) (*env, string) {
	t.Helper()
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": command})),
		scripted.TextStep("printed"),
	}}
	e := newEnv(t, script, func(o *server.Options, c *servertest.Config) {
		c.NoPermissions = true
		opt(o)
	})
	id := e.newSession()
	host := strings.TrimPrefix(e.ts.URL, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(4096)
	}
	fmt.Fprintf(conn, "GET /api/sessions/%s/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", id, host, testToken)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v %v", resp, err)
	}
	return e, id
}
