package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// An allowed host over CONNECT: TLS end to end, by IP literal and by a
// listed name, from Go's client and from curl.
func TestConnectAllowedTLS(t *testing.T) {
	srv := origin(t, true)
	port := portOf(t, srv)
	res := newResolver(map[string]string{"example.com": "127.0.0.1"})
	_, addr, rec := startProxy(t, []string{"127.0.0.1:" + port, "example.com"}, Options{Resolver: res})

	for _, u := range []string{"https://127.0.0.1:" + port + "/a?b=c", "https://example.com:" + port + "/a?b=c"} {
		status, body, err := get(t, client(t, addr, srv), u, nil)
		if err != nil || status != 200 {
			t.Fatalf("GET %s through the proxy: %d %s %v", u, status, body, err)
		}
		if e := decodeEcho(t, body); !e.TLS || e.RequestURI != "/a?b=c" || e.Header.Get("Proxy-Authorization") != "" {
			t.Errorf("GET %s: origin saw %+v", u, e)
		}

		out, stderr, code := curl(t, addr, "--cacert", caFile(t, srv), u)
		if code != 0 || !strings.Contains(out, `"TLS":true`) {
			t.Errorf("curl %s: exit %d, %s %s", u, code, out, stderr)
		}
	}
	if res.count("example.com") != 2 {
		t.Errorf("example.com looked up %d times for two requests, want 2", res.count("example.com"))
	}
	if d := rec.get(); len(d) != 0 {
		t.Errorf("denials %+v for allowed hosts", d)
	}
}

// Plain HTTP is forwarded in origin form, without hop-by-hop or Proxy-*
// headers and without adding any.
func TestPlainHTTPForwarded(t *testing.T) {
	srv := origin(t, false)
	port := portOf(t, srv)
	// "localhost" is never asked of DNS.
	res := newResolver(map[string]string{"localhost": "192.0.2.1"})
	_, addr, rec := startProxy(t, []string{"localhost:" + port}, Options{Resolver: res})

	u := "http://localhost:" + port + "/p/q?x=1"
	h := http.Header{"Proxy-Secret": {"nope"}, "Connection": {"X-Hop"}, "X-Hop": {"gone"}, "X-Kept": {"yes"}}
	status, body, err := get(t, client(t, addr, nil), u, h)
	if err != nil || status != 200 {
		t.Fatalf("GET %s: %d %s %v", u, status, body, err)
	}
	e := decodeEcho(t, body)
	if e.RequestURI != "/p/q?x=1" || e.Host != "localhost:"+port {
		t.Errorf("origin saw request-URI %q, Host %q; want origin form /p/q?x=1 and localhost:%s", e.RequestURI, e.Host, port)
	}
	for _, k := range []string{"Proxy-Authorization", "Proxy-Secret", "X-Hop", "X-Forwarded-For", "Forwarded", "Via"} {
		if v := e.Header.Get(k); v != "" {
			t.Errorf("origin got %s: %q", k, v)
		}
	}
	if e.Header.Get("X-Kept") != "yes" {
		t.Errorf("an end-to-end header was dropped: %v", e.Header)
	}

	out, stderr, code := curl(t, addr, "-H", "Proxy-Secret: nope", u)
	if code != 0 {
		t.Fatalf("curl %s: exit %d %s", u, code, stderr)
	}
	e = decodeEcho(t, []byte(out))
	if e.RequestURI != "/p/q?x=1" || e.Header.Get("Proxy-Authorization") != "" || e.Header.Get("Proxy-Secret") != "" {
		t.Errorf("curl's request reached the origin as %+v", e)
	}
	if d := rec.get(); len(d) != 0 {
		t.Errorf("denials %+v", d)
	}
	if n := res.count("localhost"); n != 0 {
		t.Errorf("localhost was looked up %d times", n)
	}
}

// A host on no pattern: 403 naming the host, the rule and the fix, and
// one Denial, for CONNECT and plain requests, from Go and curl; the
// proxy's credentials appear nowhere.
func TestRefusedHost(t *testing.T) {
	srv := origin(t, false)
	res := newResolver(map[string]string{"evil.example.net": "127.0.0.1"})
	const cfg = "/home/u/.config/tandem/config.json"
	_, addr, rec := startProxy(t, []string{"api.example.com"}, Options{Resolver: res, ConfigFile: cfg})
	port := portOf(t, srv)

	cases := []struct {
		name   string
		run    func() (int, string)
		method string
	}{{
		name: "go plain", method: "GET",
		run: func() (int, string) {
			status, body, err := get(t, client(t, addr, nil), "http://evil.example.net:"+port+"/x", nil)
			if err != nil {
				t.Fatal(err)
			}
			return status, string(body)
		},
	}, {
		name: "go connect", method: "CONNECT",
		run: func() (int, string) {
			return rawConnect(t, addr, "evil.example.net:"+port)
		},
	}, {
		name: "curl plain", method: "GET",
		run: func() (int, string) {
			out, _, _ := curl(t, addr, "-w", "\n%{http_code}", "http://evil.example.net:"+port+"/x")
			body, code, _ := strings.Cut(out, "\n403")
			if code != "" || !strings.HasSuffix(out, "\n403") {
				return 0, out
			}
			return 403, body
		},
	}, {
		name: "curl connect", method: "CONNECT",
		run: func() (int, string) {
			out, stderr, code := curl(t, addr, "-k", "-w", "%{http_connect}", "https://evil.example.net:"+port+"/x")
			if code == 0 || out != "403" {
				t.Errorf("curl through a refused CONNECT: exit %d, %q %s", code, out, stderr)
			}
			return 403, ""
		},
	}}
	for i, c := range cases {
		status, body := c.run()
		if status != 403 {
			t.Fatalf("%s: status %d, body %q", c.name, status, body)
		}
		if body != "" {
			for _, want := range []string{"evil.example.net:" + port, RuleNotAllowed, `add "evil.example.net" to sandbox.network.allow in ` + cfg, "for this session"} {
				if !strings.Contains(body, want) {
					t.Errorf("%s: body %q lacks %q", c.name, body, want)
				}
			}
			if strings.Contains(body, proxySecret) {
				t.Errorf("%s: body quotes the proxy credentials", c.name)
			}
		}
		d := rec.get()
		if len(d) != i+1 {
			t.Fatalf("%s: %d denials after %d refused requests: %+v", c.name, len(d), i+1, d)
		}
		want := Denial{Host: "evil.example.net", Port: atoi(t, port), Method: c.method, Rule: RuleNotAllowed}
		if d[i] != want {
			t.Errorf("%s: denial %+v, want %+v", c.name, d[i], want)
		}
	}
	if n := res.count("evil.example.net"); n != 0 {
		t.Errorf("a refused name was looked up %d times; the allow-list is checked first", n)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// rawConnect sends a CONNECT and returns the answer's status and body.
func rawConnect(t *testing.T, proxyAddr, authority string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\n\r\n", authority, authority, proxySecret)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// A name allowed only by a wildcard that resolves to this machine, the
// metadata service or a private network is refused (DNS rebinding),
// unless the list names the address or the host itself; the proxy dials
// the very address it checked, after one look-up.
func TestPrivateAddressRefused(t *testing.T) {
	srv := origin(t, false)
	port := portOf(t, srv)
	res := newResolver(map[string]string{
		"rebind.example.com": "127.0.0.1",
		"meta.example.com":   "169.254.169.254",
		"mixed.example.com":  "93.184.215.14 10.0.0.7",
		"exact.example.org":  "127.0.0.1",
	})
	var mu sync.Mutex
	var dialled []string
	dial := func(ctx context.Context, network, a string) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, a)
		mu.Unlock()
		if strings.HasPrefix(a, "127.0.0.1:") {
			var d net.Dialer
			return d.DialContext(ctx, network, a)
		}
		return nil, fmt.Errorf("test dialer: %s is unreachable", a)
	}
	p, addr, rec := startProxy(t, []string{"*.example.com", "exact.example.org"}, Options{Resolver: res, Dial: dial})
	c := client(t, addr, nil)

	for host, detail := range map[string]string{
		"rebind.example.com": "rebind.example.com resolves to 127.0.0.1, a loopback address",
		"meta.example.com":   "meta.example.com resolves to 169.254.169.254, a link-local address",
		"mixed.example.com":  "mixed.example.com resolves to 10.0.0.7, a private address",
	} {
		status, body, err := get(t, c, "http://"+host+":"+port+"/", nil)
		if err != nil || status != 403 || !strings.Contains(string(body), detail) || !strings.Contains(string(body), "the host itself, not a wildcard") {
			t.Errorf("%s: %d %q %v; want 403 saying %q", host, status, body, err, detail)
		}
	}
	d := rec.get()
	if len(d) != 3 {
		t.Fatalf("denials %+v, want 3", d)
	}
	for _, x := range d {
		if x.Rule != RulePrivateAddress || !x.Addr.IsValid() || x.Method != "GET" {
			t.Errorf("denial %+v", x)
		}
	}
	mu.Lock()
	if len(dialled) != 0 {
		t.Errorf("refused names were dialled: %v", dialled)
	}
	mu.Unlock()

	// The host named exactly may resolve to loopback.
	if status, body, err := get(t, c, "http://exact.example.org:"+port+"/", nil); err != nil || status != 200 {
		t.Errorf("exact.example.org (listed itself): %d %s %v", status, body, err)
	}
	// Naming the address lets the wildcard's name reach it.
	if err := p.Allow("127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if status, body, err := get(t, c, "http://rebind.example.com:"+port+"/", nil); err != nil || status != 200 {
		t.Errorf("rebind.example.com with 127.0.0.1 allowed: %d %s %v", status, body, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"127.0.0.1:" + port, "127.0.0.1:" + port}
	if fmt.Sprint(dialled) != fmt.Sprint(want) {
		t.Errorf("dialled %v, want the checked addresses %v", dialled, want)
	}
	if n := res.count("rebind.example.com"); n != 2 {
		t.Errorf("rebind.example.com looked up %d times in two requests, want once each", n)
	}
}

// A session allowance takes effect at once and is listed; the list the
// proxy was made from is not changed.
func TestAllowAtRuntime(t *testing.T) {
	srv := origin(t, false)
	port := portOf(t, srv)
	base, err := ParseAllow([]string{"api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	p := New(base, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(ln) }()
	defer func() {
		p.Close()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	c := client(t, ln.Addr().String(), nil)
	u := "http://127.0.0.1:" + port + "/"
	if status, _, _ := get(t, c, u, nil); status != 403 {
		t.Fatalf("before Allow: status %d, want 403", status)
	}
	if err := p.Allow("127.0.0.1:" + port); err != nil {
		t.Fatal(err)
	}
	if status, body, err := get(t, c, u, nil); status != 200 {
		t.Fatalf("after Allow: %d %s %v", status, body, err)
	}
	if got, want := fmt.Sprint(p.Allowed()), fmt.Sprint([]string{"api.example.com", "127.0.0.1:" + port}); got != want {
		t.Errorf("Allowed() = %s, want %s", got, want)
	}
	if got := base.Patterns(); len(got) != 1 {
		t.Errorf("the caller's list changed: %v", got)
	}
	if err := p.Allow("*"); err == nil || !strings.Contains(err.Error(), `"*"`) {
		t.Errorf("Allow(\"*\") = %v, want an error naming it", err)
	}
}

// Close ends a live tunnel and the connection waiting in it, and Serve
// returns; goleak (TestMain) checks nothing is left running.
func TestCloseEndsTunnels(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer echo.Close()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()

	allow, _ := ParseAllow([]string{echo.Addr().String()})
	p := New(allow, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(ln) }()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	// The tunnel's first bytes ride right behind the request.
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %[1]s\r\n\r\nping\n", echo.Addr())
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	if line, err := br.ReadString('\n'); line != "ping\n" {
		t.Fatalf("through the tunnel: %q %v", line, err)
	}
	// An idle keep-alive client too.
	idle, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return within 10 s of Close")
	}
	for _, c := range []net.Conn{conn, idle} {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var r io.Reader = c
		if c == conn {
			r = br
		}
		if _, err := io.ReadAll(r); err != nil {
			t.Errorf("after Close, reading the client connection: %v (want end of stream within 10 s)", err)
		}
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("the listener still accepts after Close")
	}
}

// Headers are bounded: a request header block past the limit is refused
// before anything is judged.
func TestHeaderLimit(t *testing.T) {
	_, addr, rec := startProxy(t, []string{"api.example.com"}, Options{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go fmt.Fprintf(c, "GET http://api.example.com/ HTTP/1.1\r\nHost: api.example.com\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 2*maxHeaderBytes))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("status %d, want 431", resp.StatusCode)
	}
	if d := rec.get(); len(d) != 0 {
		t.Errorf("denials %+v", d)
	}
}

// Requests the proxy cannot serve are told how to ask instead.
func TestBadRequests(t *testing.T) {
	_, addr, rec := startProxy(t, []string{"127.0.0.1"}, Options{})
	for req, want := range map[string]string{
		"GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n":                      "send absolute URLs",
		"GET https://127.0.0.1/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n":     "https URLs go through CONNECT",
		"CONNECT 127.0.0.1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n":           "CONNECT needs host:port",
		"CONNECT 127.0.0.1:0 HTTP/1.1\r\nHost: 127.0.0.1:0\r\n\r\n":       "CONNECT needs host:port",
		"GET http://127.0.0.1:99999/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n": "bad port",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), want) {
			t.Errorf("%q: %d %q, want 400 saying %q", req, resp.StatusCode, body, want)
		}
	}
	if d := rec.get(); len(d) != 0 {
		t.Errorf("denials %+v for malformed requests", d)
	}
}

// An allowed name that does not resolve, or an origin that does not
// answer, is a 502 naming the host, not a denial.
func TestUnreachableIs502(t *testing.T) {
	res := newResolver(nil)
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := refused.Addr().String()
	refused.Close()
	_, addr, rec := startProxy(t, []string{"gone.example.com", deadAddr}, Options{Resolver: res})
	c := client(t, addr, nil)
	for u, want := range map[string]string{
		"http://gone.example.com/": "cannot resolve gone.example.com",
		"http://" + deadAddr + "/": "could not reach " + deadAddr,
	} {
		status, body, err := get(t, c, u, nil)
		if err != nil || status != 502 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d %q %v, want 502 saying %q", u, status, body, err, want)
		}
	}
	if status, _ := rawConnect(t, addr, deadAddr); status != 502 {
		t.Errorf("CONNECT to a closed port: %d, want 502", status)
	}
	if d := rec.get(); len(d) != 0 {
		t.Errorf("denials %+v", d)
	}
}

// The destination is the request's URL or CONNECT authority, never its
// Host header: a client cannot reach one host while naming an allowed
// one, and the origin is told the host that was judged.
func TestHostHeaderIgnored(t *testing.T) {
	srv := origin(t, false)
	port := portOf(t, srv)
	allowed := "127.0.0.1:" + port
	_, addr, rec := startProxy(t, []string{allowed}, Options{})
	send := func(req string) (*http.Response, string) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, req)
		br := bufio.NewReader(c)
		method := "GET"
		if strings.HasPrefix(req, "CONNECT") {
			method = "CONNECT"
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if method == "CONNECT" {
			return resp, ""
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}

	resp, body := send("GET http://" + allowed + "/h HTTP/1.1\r\nHost: evil.example.net\r\nConnection: close\r\n\r\n")
	if resp.StatusCode != 200 || decodeEcho(t, []byte(body)).Host != allowed {
		t.Errorf("allowed URL, other Host header: %d, origin saw %s; want 200 with Host %s", resp.StatusCode, body, allowed)
	}
	resp, _ = send("GET http://evil.example.net:" + port + "/h HTTP/1.1\r\nHost: " + allowed + "\r\nConnection: close\r\n\r\n")
	if resp.StatusCode != 403 {
		t.Errorf("refused URL, allowed Host header: %d, want 403", resp.StatusCode)
	}
	resp, _ = send("CONNECT evil.example.net:" + port + " HTTP/1.1\r\nHost: " + allowed + "\r\n\r\n")
	if resp.StatusCode != 403 {
		t.Errorf("CONNECT to a refused host with an allowed Host header: %d, want 403", resp.StatusCode)
	}
	if d := rec.get(); len(d) != 2 || d[0].Host != "evil.example.net" || d[1].Host != "evil.example.net" {
		t.Errorf("denials %+v, want two for evil.example.net", d)
	}
}

// A dial that does not answer is given up after DialTimeout, whatever
// dialer the proxy was given.
func TestDialTimeout(t *testing.T) {
	hang := func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	_, addr, rec := startProxy(t, []string{"192.0.2.1"}, Options{Dial: hang, DialTimeout: 50 * time.Millisecond})
	if status, body := rawConnect(t, addr, "192.0.2.1:443"); status != 502 || !strings.Contains(body, "deadline exceeded") {
		t.Errorf("CONNECT to a host that never answers: %d %q, want 502", status, body)
	}
	if d := rec.get(); len(d) != 0 {
		t.Errorf("denials %+v", d)
	}
}
