package netproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// Every test ends with no goroutine of the proxy, a tunnel or Forward
// left behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// proxySecret is the password of the Proxy-Authorization the test
// clients send: it must never reach an origin or a Denial.
const proxySecret = "s3cret-proxy-pass"

// denials records what OnDenial was told.
type denials struct {
	mu   sync.Mutex
	list []Denial
}

func (d *denials) add(x Denial) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, x)
}

func (d *denials) get() []Denial {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Denial(nil), d.list...)
}

// resolver answers from a table and counts the look-ups.
type resolver struct {
	mu    sync.Mutex
	names map[string][]netip.Addr
	calls map[string]int
}

func newResolver(names map[string]string) *resolver {
	r := &resolver{names: map[string][]netip.Addr{}, calls: map[string]int{}}
	for name, addrs := range names {
		for _, a := range bytes.Fields([]byte(addrs)) {
			r.names[name] = append(r.names[name], netip.MustParseAddr(string(a)))
		}
	}
	return r
}

func (r *resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[host]++
	if a, ok := r.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *resolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// startProxy serves a proxy allowing patterns on 127.0.0.1; it is
// closed, and Serve checked to return nil, when the test ends.
func startProxy(t *testing.T, patterns []string, opts Options) (*Proxy, string, *denials) {
	t.Helper()
	allow, err := ParseAllow(patterns)
	if err != nil {
		t.Fatal(err)
	}
	rec := &denials{}
	opts.OnDenial = rec.add
	p := New(allow, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(ln) }()
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve returned %v after Close, want nil", err)
		}
	})
	return p, ln.Addr().String(), rec
}

// echoed is what the origin servers answer: what they received.
type echoed struct {
	Host       string
	RequestURI string
	Header     http.Header
	TLS        bool
}

func echoHandler(w http.ResponseWriter, r *http.Request) {
	json.NewEncoder(w).Encode(echoed{Host: r.Host, RequestURI: r.RequestURI, Header: r.Header, TLS: r.TLS != nil})
}

func origin(t *testing.T, tlsToo bool) *httptest.Server {
	t.Helper()
	var s *httptest.Server
	if tlsToo {
		s = httptest.NewTLSServer(http.HandlerFunc(echoHandler))
	} else {
		s = httptest.NewServer(http.HandlerFunc(echoHandler))
	}
	t.Cleanup(s.Close)
	return s
}

func portOf(t *testing.T, s *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// client goes through the proxy at proxyAddr with a Proxy-Authorization,
// trusting tlsServer's certificate when there is one.
func client(t *testing.T, proxyAddr string, tlsServer *httptest.Server) *http.Client {
	t.Helper()
	tr := &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: proxyAddr, User: url.UserPassword("agent", proxySecret)})}
	if tlsServer != nil {
		tr.TLSClientConfig = tlsServer.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// get fetches u and returns the status and body.
func get(t *testing.T, c *http.Client, u string, header http.Header) (int, []byte, error) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes(), err
}

func decodeEcho(t *testing.T, body []byte) echoed {
	t.Helper()
	var e echoed
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("origin answer %q: %v", body, err)
	}
	return e
}

// curl runs Debian's curl through the proxy; it returns stdout, stderr
// and the exit code.
func curl(t *testing.T, proxyAddr string, args ...string) (string, string, int) {
	t.Helper()
	bin, err := exec.LookPath("curl")
	if err != nil {
		t.Fatalf("these tests run the real curl: install it (apt-get install curl; .ci/run does): %v", err)
	}
	all := append([]string{"-q", "-sS", "--max-time", "30", "--proxy", "http://agent:" + proxySecret + "@" + proxyAddr}, args...)
	cmd := exec.Command(bin, all...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("curl: %v", err)
	}
	return out.String(), errb.String(), code
}

// caFile writes s's certificate where curl can read it.
func caFile(t *testing.T, s *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
