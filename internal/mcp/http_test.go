package mcp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP runs the everything server with one of its HTTP
// transports and returns its base URL once it accepts connections.
func startEverythingHTTP(t *testing.T, mode string) string {
	t.Helper()
	bin := npmBin(t, "mcp-server-everything")
	port := freePort(t)
	cmd := exec.Command(bin, mode)
	cmd.Env = append(cmd.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := newRing(4096)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return base
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("everything %s server did not listen on %d: %s", mode, port, out.Tail(20))
	return ""
}

func TestEverythingStreamableHTTP(t *testing.T) {
	base := startEverythingHTTP(t, "streamableHttp")
	t.Setenv("TANDEM_TEST_TOKEN", "secret-1")
	h := startManager(t, Servers{"ev": {Type: TypeHTTP, URL: base + "/mcp",
		Headers: map[string]string{"X-Test-Token": "${TANDEM_TEST_TOKEN}"}}})
	checkEverything(t, h)
}

func TestEverythingSSE(t *testing.T) {
	base := startEverythingHTTP(t, "sse")
	h := startManager(t, Servers{"ev": {Type: TypeSSE, URL: base + "/sse"}})
	checkEverything(t, h)
}

func TestHeadersAreSent(t *testing.T) {
	got := make(chan string, 1)
	srv := newHTTPTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Get("Authorization"):
		default:
		}
		http.Error(w, "nope", http.StatusUnauthorized)
	}))
	t.Setenv("TANDEM_TEST_TOKEN", "abc")
	h := startManager(t, Servers{"auth": {Type: TypeHTTP, URL: srv + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer ${TANDEM_TEST_TOKEN}"}}})
	st := h.waitState(t, "auth", StateFailed, 10*time.Second)
	if v := <-got; v != "Bearer abc" {
		t.Fatalf("Authorization header = %q", v)
	}
	if !strings.Contains(st.Error, "401") && !strings.Contains(strings.ToLower(st.Error), "unauthorized") {
		t.Logf("failure message: %s", st.Error)
	}
	if !h.m.WaitReady(context.Background(), time.Second) {
		t.Fatal("a failed server counts as settled")
	}
}
