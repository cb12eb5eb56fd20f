package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Forward end to end: curl and Go's client in the sandbox's place talk
// to 127.0.0.1 (Forward), which splices to the proxy's unix socket, which
// reaches the origin; cancelling Forward's context ends it and its
// connections.
func TestForwardEndToEnd(t *testing.T) {
	plain := origin(t, false)
	tlsSrv := origin(t, true)
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	allow, err := ParseAllow([]string{"127.0.0.1:" + portOf(t, plain), "127.0.0.1:" + portOf(t, tlsSrv)})
	if err != nil {
		t.Fatal(err)
	}
	rec := &denials{}
	p := New(allow, Options{OnDenial: rec.add})
	unixLn, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(unixLn) }()
	defer func() {
		p.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()

	tcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	forwarded := make(chan error, 1)
	go func() { forwarded <- Forward(ctx, tcpLn, sock) }()
	fwd := tcpLn.Addr().String()

	if out, stderr, code := curl(t, fwd, plain.URL+"/via-forward"); code != 0 || !strings.Contains(out, `"RequestURI":"/via-forward"`) {
		t.Errorf("curl http through Forward: exit %d %s %s", code, out, stderr)
	}
	if out, stderr, code := curl(t, fwd, "--cacert", caFile(t, tlsSrv), tlsSrv.URL+"/tls"); code != 0 || !strings.Contains(out, `"TLS":true`) {
		t.Errorf("curl https through Forward: exit %d %s %s", code, out, stderr)
	}
	if status, body, err := get(t, client(t, fwd, tlsSrv), tlsSrv.URL+"/go", nil); err != nil || status != 200 {
		t.Errorf("Go client through Forward: %d %s %v", status, body, err)
	}
	if status, _, err := get(t, client(t, fwd, nil), "http://api.example.com/", nil); err != nil || status != 403 || len(rec.get()) != 1 {
		t.Errorf("refused host through Forward: %d %v, denials %+v", status, err, rec.get())
	}

	// A connection held open through Forward ends with it.
	held, err := net.Dial("tcp", fwd)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	fmt.Fprintf(held, "CONNECT 127.0.0.1:%s HTTP/1.1\r\nHost: x\r\n\r\n", portOf(t, plain))
	br := bufio.NewReader(held)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT through Forward: %v %v", resp, err)
	}
	cancel()
	select {
	case err := <-forwarded:
		if err != nil {
			t.Errorf("Forward returned %v after its context ended, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Forward did not return within 10 s of its context ending")
	}
	held.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(br); err != nil {
		t.Errorf("the held connection: %v, want end of stream", err)
	}
	if _, err := net.Dial("tcp", fwd); err == nil {
		t.Error("Forward's listener still accepts")
	}
}

// With no proxy at the socket, a client's connection is closed and
// Forward goes on serving.
func TestForwardNoProxy(t *testing.T) {
	tcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	forwarded := make(chan error, 1)
	go func() { forwarded <- Forward(ctx, tcpLn, filepath.Join(t.TempDir(), "absent.sock")) }()
	for range 2 {
		c, err := net.Dial("tcp", tcpLn.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read %d, %v; want the connection closed", n, err)
		}
		c.Close()
	}
	cancel()
	if err := <-forwarded; err != nil {
		t.Errorf("Forward: %v", err)
	}
}
