package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/sandbox/netproxy"
)

// tryGet fetches u through $HTTP_PROXY (loopback is in NO_PROXY, so the
// proxy is named here, not taken from the environment), printing the
// status and the body.
func tryGet(u string) int {
	proxy, err := url.Parse(os.Getenv("HTTP_PROXY"))
	if err != nil || proxy.Host == "" {
		fmt.Println("error: no HTTP_PROXY")
		return 1
	}
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	resp, err := c.Get(u)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)))
	return 0
}

// waitUntil polls cond for up to 15 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// marked lists the pids of live processes whose command line has mark.
func marked(mark string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), mark) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue // ended, not yet reaped
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// startTree starts `try tree MARK` through Start and waits for its
// "started"; it returns the process and the mark.
func startTree(t *testing.T, s *Sandbox) (*Process, string) {
	t.Helper()
	mark := fmt.Sprintf("tree-%d-%d", os.Getpid(), time.Now().UnixNano())
	exe, _ := os.Executable()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command(exe, "try", "tree", mark)
	cmd.Stdout = w
	p, err := s.Start(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	if strings.TrimSpace(line) != "started" {
		t.Fatalf("tree: %q", line)
	}
	return p, mark
}

// The session's sandbox process holds the boundary: the secret, writes
// outside, raw sockets (TestKernelRefuses* run through Start too), and
// the proxy's list with the real proxy: a loopback host on the list is
// reached, one not on it is refused.
func TestStartedNetworkThroughRealProxy(t *testing.T) {
	l := newLayout(t)
	okSrv, other := httpServer(t, "allowed host"), httpServer(t, "not listed")
	allow, err := netproxy.ParseAllow([]string{okSrv})
	if err != nil {
		t.Fatal(err)
	}
	proxy := netproxy.New(allow, netproxy.Options{})
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go proxy.Serve(ln)
	t.Cleanup(func() { proxy.Close() })
	p := l.policy()
	p.Network.ProxySocket = sock
	s := testSandbox(t, p)
	if !s.Capabilities().UserNS {
		t.Skip("no user namespaces here")
	}
	if out, code := runStarted(t, s, "get", "http://"+okSrv+"/"); code != 0 || !strings.Contains(out, "200 allowed host") {
		t.Errorf("allow-listed %s: code %d, %q; want 200 allowed host", okSrv, code, out)
	}
	if out, _ := runStarted(t, s, "get", "http://"+other+"/"); !strings.Contains(out, "403") || strings.Contains(out, "not listed") {
		t.Errorf("%s, not on the list: %q; want the proxy's 403", other, out)
	}
	if out, code := runStarted(t, s, "connect", other); code == 0 {
		t.Errorf("direct connect to %s: %q; want refused (no route out of the namespace)", other, out)
	}
	// A session allowance widens the proxy's list for the next command.
	if err := proxy.Allow(other); err != nil {
		t.Fatal(err)
	}
	if out, _ := runStarted(t, s, "get", "http://"+other+"/"); !strings.Contains(out, "200 not listed") {
		t.Errorf("%s after the allowance: %q; want 200", other, out)
	}
}

func httpServer(t *testing.T, body string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// Signalling the command's group (as the Bash tool's interrupt does)
// ends the command and its children.
func TestStartedInterruptKillsGroup(t *testing.T) {
	s := testSandbox(t, newLayout(t).policy())
	p, mark := startTree(t, s)
	waitUntil(t, "the tree's three processes", func() bool { return len(marked(mark)) == 3 })
	if err := syscall.Kill(-p.Pid, syscall.SIGTERM); err != nil {
		t.Fatalf("signal the group %d: %v", p.Pid, err)
	}
	ws, err := p.Wait()
	if err != nil || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("status %v %v; want killed by SIGTERM", ws, err)
	}
	waitUntil(t, "the children's end", func() bool { return len(marked(mark)) == 0 })
}

// Close ends the session's sandbox process and what it still runs, with
// namespaces (the pid namespace ends with it) and without (it kills them).
func TestStartedCloseLeavesNothing(t *testing.T) {
	for _, noNS := range []bool{false, true} {
		t.Run(fmt.Sprintf("no-namespaces=%v", noNS), func(t *testing.T) {
			p := newLayout(t).policy()
			p.NoNamespaces = noNS
			s := testSandbox(t, p)
			proc, mark := startTree(t, s)
			waitUntil(t, "the tree's three processes", func() bool { return len(marked(mark)) == 3 })
			s.mu.Lock()
			srvPid := s.srv.cmd.Process.Pid
			s.mu.Unlock()
			s.Close()
			proc.Wait()
			waitUntil(t, "no process of the tree left", func() bool { return len(marked(mark)) == 0 })
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", srvPid)); err == nil {
				t.Errorf("the sandbox process %d is still there", srvPid)
			}
			// The sandbox stays usable: a new sandbox process.
			if out, code := runStarted(t, s, "exit", "3"); code != 3 {
				t.Errorf("after Close: code %d, %q; want 3", code, out)
			}
		})
	}
}

// Many commands at once on one session, each with its own status and
// output; most end at once (the reaper must not lose or mix them).
func TestStartedConcurrent(t *testing.T) {
	s := testSandbox(t, newLayout(t).policy())
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exe, _ := os.Executable()
			r, w, err := os.Pipe()
			if err != nil {
				errs <- err.Error()
				return
			}
			defer r.Close()
			cmd := exec.Command(exe, "try", "exit", strconv.Itoa(i))
			if i%2 == 0 {
				cmd = exec.Command("/bin/sh", "-c", fmt.Sprintf("echo %d; exit %d", i, i))
			}
			cmd.Stdout = w
			p, err := s.Start(cmd)
			w.Close()
			if err != nil {
				errs <- fmt.Sprintf("%d: start: %v", i, err)
				return
			}
			out, _ := io.ReadAll(r)
			ws, err := p.Wait()
			if err != nil || ws.ExitStatus() != i {
				errs <- fmt.Sprintf("%d: status %d %v", i, ws.ExitStatus(), err)
			}
			if i%2 == 0 && strings.TrimSpace(string(out)) != strconv.Itoa(i) {
				errs <- fmt.Sprintf("%d: output %q", i, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
