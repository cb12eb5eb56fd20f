package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary plays both the tandem binary (the launcher role) and the
// programs run inside (`try ...`), so the tests need nothing installed.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ExecArg {
		os.Exit(Exec(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == "try" {
		os.Exit(try(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// try does one thing a confined command might, printing "ok" or the error.
func try(args []string) int {
	var err error
	switch args[0] {
	case "read":
		_, err = os.ReadFile(args[1])
	case "write":
		err = os.WriteFile(args[1], []byte("x"), 0o644)
	case "raw":
		var fd int
		fd, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_RAW, syscall.IPPROTO_ICMP)
		if err == nil {
			syscall.Close(fd)
		}
	case "connect":
		var c net.Conn
		c, err = net.Dial("tcp", args[1])
		if err == nil {
			c.Close()
		}
	case "proxy": // talk to $HTTP_PROXY, print its first line
		addr := strings.TrimPrefix(os.Getenv("HTTP_PROXY"), "http://")
		var c net.Conn
		if c, err = net.Dial("tcp", addr); err == nil {
			fmt.Fprintf(c, "GET http://example.test/ HTTP/1.1\r\nHost: example.test\r\n\r\n")
			line, _ := bufio.NewReader(c).ReadString('\n')
			fmt.Print(line)
			c.Close()
		}
	case "get": // GET args[1] through $HTTP_PROXY, print the status and body
		return tryGet(args[1])
	case "tree": // two children that sleep, marked by args[1]; then sleep too
		for i := 0; i < 2; i++ {
			c := exec.Command(os.Args[0], "try", "sleep", args[1])
			if err = c.Start(); err != nil {
				break
			}
		}
		if err == nil {
			fmt.Println("started")
			os.Stdout.Sync()
			time.Sleep(time.Hour)
		}
	case "caps": // the effective capabilities
		var b []byte
		if b, err = os.ReadFile("/proc/self/status"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(line, "CapEff:") {
					fmt.Println(line)
					return 0
				}
			}
		}
	case "sleep":
		time.Sleep(time.Hour)
	case "ptrace":
		err = syscall.PtraceAttach(os.Getppid())
	case "exit":
		var code int
		fmt.Sscan(args[1], &code)
		return code
	case "fd3":
		_, err = os.NewFile(3, "fd3").WriteString("through fd 3")
	}
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

func testSandbox(t *testing.T, p Policy) *Sandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(p, exe)
	if err != nil {
		t.Skipf("sandbox unavailable here: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// run runs `try args...` inside s, through the session's sandbox process
// (Start) and through the launcher (Confine), and returns its output and
// exit code; the two must agree.
func run(t *testing.T, s *Sandbox, args ...string) (string, int) {
	t.Helper()
	out, code := runStarted(t, s, args...)
	if lout, lcode := runConfined(t, s, args...); lout != out || lcode != code {
		t.Errorf("%v: through Start %d %q, through Confine %d %q", args, code, out, lcode, lout)
	}
	return out, code
}

// runStarted runs `try args...` through Start.
func runStarted(t *testing.T, s *Sandbox, args ...string) (string, int) {
	t.Helper()
	exe, _ := os.Executable()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(exe, append([]string{"try"}, args...)...)
	cmd.Stdout, cmd.Stderr = w, w
	p, err := s.Start(cmd)
	w.Close()
	if err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	out, _ := io.ReadAll(r)
	ws, err := p.Wait()
	if err != nil {
		t.Fatalf("wait %v: %v", args, err)
	}
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	return strings.TrimSpace(string(out)), code
}

// runConfined runs `try args...` through Confine (the launcher).
func runConfined(t *testing.T, s *Sandbox, args ...string) (string, int) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append([]string{"try"}, args...)...)
	if err := s.Confine(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out)), cmd.ProcessState.ExitCode()
}

type layout struct{ home, ws, outside, secret, tmp string }

func newLayout(t *testing.T) layout {
	root := t.TempDir()
	l := layout{home: filepath.Join(root, "home"), ws: filepath.Join(root, "home", "proj"),
		outside: filepath.Join(root, "outside.txt"), tmp: filepath.Join(root, "tmp")}
	l.secret = filepath.Join(l.home, ".ssh", "id_rsa")
	for _, d := range []string{l.ws, filepath.Dir(l.secret), l.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(l.secret, []byte("PRIVATE KEY"), 0o600)
	os.WriteFile(filepath.Join(l.home, "notes.txt"), []byte("notes"), 0o644)
	return l
}

func (l layout) policy() Policy {
	return Policy{WriteRoots: []string{l.ws}, TempDir: l.tmp, DenyRead: []string{filepath.Join(l.home, ".ssh")}}
}

func TestKernelRefusesSecretRead(t *testing.T) {
	l := newLayout(t)
	s := testSandbox(t, l.policy())
	if out, code := run(t, s, "read", l.secret); code == 0 || !strings.Contains(out, "permission denied") {
		t.Errorf("reading the ssh key inside the sandbox: code %d, %q; want permission denied", code, out)
	}
	if out, code := run(t, s, "read", filepath.Join(l.home, "notes.txt")); code != 0 {
		t.Errorf("reading an ordinary file: code %d, %q; want ok", code, out)
	}
	if _, err := os.ReadFile(l.secret); err != nil {
		t.Fatalf("the test itself cannot read the key: %v", err)
	}
}

func TestKernelRefusesWriteOutside(t *testing.T) {
	l := newLayout(t)
	s := testSandbox(t, l.policy())
	if out, code := run(t, s, "write", filepath.Join(l.ws, "..", "outside.txt")); code == 0 || !strings.Contains(out, "permission denied") {
		t.Errorf("writing ../outside.txt: code %d, %q; want permission denied", code, out)
	}
	if out, code := run(t, s, "write", l.outside); code == 0 {
		t.Errorf("writing %s: code %d, %q; want refused", l.outside, code, out)
	}
	for _, ok := range []string{filepath.Join(l.ws, "inside.txt"), filepath.Join(l.tmp, "t.txt"), "/dev/null"} {
		if out, code := run(t, s, "write", ok); code != 0 {
			t.Errorf("writing %s: code %d, %q; want ok", ok, code, out)
		}
	}
}

func TestKernelRefusesRawSocketAndPtrace(t *testing.T) {
	l := newLayout(t)
	s := testSandbox(t, l.policy())
	if out, code := run(t, s, "raw"); code == 0 || !strings.Contains(out, "operation not permitted") {
		t.Errorf("raw socket: code %d, %q; want operation not permitted", code, out)
	}
	if out, code := run(t, s, "ptrace"); code == 0 || !strings.Contains(out, "operation not permitted") {
		t.Errorf("ptrace of the launcher: code %d, %q; want operation not permitted", code, out)
	}
}

func TestNetworkOnlyThroughProxy(t *testing.T) {
	l := newLayout(t)
	outsideLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer outsideLn.Close()
	go acceptAll(outsideLn, "outside")
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	proxyLn, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer proxyLn.Close()
	go acceptAll(proxyLn, "HTTP/1.1 200 from the stand-in proxy")

	p := l.policy()
	p.Network.ProxySocket = sock
	s := testSandbox(t, p)
	if !s.Capabilities().UserNS {
		t.Skip("no user namespaces here: the fallback is TestFallbackTCPOnlyToProxyPort")
	}
	if out, code := run(t, s, "connect", outsideLn.Addr().String()); code == 0 {
		t.Errorf("connect to a listener outside the namespace: code %d, %q; want refused", code, out)
	}
	if out, code := run(t, s, "proxy"); code != 0 || !strings.Contains(out, "from the stand-in proxy") {
		t.Errorf("through $HTTP_PROXY: code %d, %q; want the proxy's answer", code, out)
	}
}

func TestFallbackTCPOnlyToProxyPort(t *testing.T) {
	l := newLayout(t)
	outsideLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer outsideLn.Close()
	go acceptAll(outsideLn, "outside")
	proxyLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer proxyLn.Close()
	go acceptAll(proxyLn, "HTTP/1.1 200 from the stand-in proxy")
	p := l.policy()
	p.NoNamespaces = true
	p.Network.ProxyPort = proxyLn.Addr().(*net.TCPAddr).Port
	s := testSandbox(t, p)
	if s.Capabilities().LandlockABI < 4 {
		t.Skip("landlock ABI < 4: no TCP rules")
	}
	if out, code := run(t, s, "connect", outsideLn.Addr().String()); code == 0 || !strings.Contains(out, "permission denied") {
		t.Errorf("connect to a loopback listener that is not the proxy: code %d, %q; want permission denied", code, out)
	}
	if out, code := run(t, s, "proxy"); code != 0 || !strings.Contains(out, "from the stand-in proxy") {
		t.Errorf("to the proxy port: code %d, %q; want the proxy's answer", code, out)
	}
	if out, code := run(t, s, "read", l.secret); code == 0 {
		t.Errorf("fallback still refuses the key: code %d, %q", code, out)
	}
}

func TestExitCodeAndDescriptorsPassThrough(t *testing.T) {
	l := newLayout(t)
	s := testSandbox(t, l.policy())
	if _, code := run(t, s, "exit", "7"); code != 7 {
		t.Errorf("exit code %d, want 7", code)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "try", "fd3")
	cmd.ExtraFiles = []*os.File{w}
	if err := s.Confine(cmd); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fd3: %v %s", err, out)
	}
	w.Close()
	got, _ := io.ReadAll(r)
	if string(got) != "through fd 3" {
		t.Errorf("fd 3 got %q", got)
	}

	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(exe, "try", "fd3")
	cmd.ExtraFiles = []*os.File{w}
	p, err := s.Start(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if ws, err := p.Wait(); err != nil || ws.ExitStatus() != 0 {
		t.Fatalf("fd3 through Start: %v %v", ws, err)
	}
	got, _ = io.ReadAll(r)
	if string(got) != "through fd 3" {
		t.Errorf("fd 3 through Start got %q", got)
	}
}

func acceptAll(ln net.Listener, reply string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			bufio.NewReader(c).ReadString('\n')
			fmt.Fprintf(c, "%s\r\n\r\n", reply)
		}()
	}
}

func TestProtectedPlacesStayReadOnly(t *testing.T) {
	l := newLayout(t)
	hooks := filepath.Join(l.ws, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	p := l.policy()
	p.ReadOnly = []string{hooks, filepath.Join(l.ws, ".tandem")}
	s := testSandbox(t, p)
	if !s.Capabilities().UserNS {
		t.Skip("read-only places need the mount namespace")
	}
	if out, code := run(t, s, "write", filepath.Join(hooks, "pre-commit")); code == 0 || !strings.Contains(out, "read-only file system") {
		t.Errorf("writing .git/hooks/pre-commit: code %d, %q; want read-only file system", code, out)
	}
	if out, code := run(t, s, "write", filepath.Join(l.ws, ".git", "HEAD")); code != 0 {
		t.Errorf("writing .git/HEAD (git's own): code %d, %q; want ok", code, out)
	}
	if _, err := os.Stat(filepath.Join(hooks, "pre-commit")); err == nil {
		t.Error("the hook was written")
	}
}

// /dev/shm inside is the sandbox's own: what a command writes there never
// reaches the machine's (where another program's shared memory lives).
func TestSharedMemoryIsPrivate(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm here")
	}
	l := newLayout(t)
	s := testSandbox(t, l.policy())
	if !s.Capabilities().UserNS {
		t.Skip("a private /dev/shm needs the mount namespace")
	}
	name := filepath.Join("/dev/shm", "tandem-sandbox-test-"+filepath.Base(filepath.Dir(filepath.Dir(l.ws))))
	t.Cleanup(func() { os.Remove(name) })
	if out, code := run(t, s, "write", name); code != 0 {
		t.Fatalf("writing %s inside: code %d, %q; want ok (a private one)", name, code, out)
	}
	if _, err := os.Stat(name); err == nil {
		t.Errorf("%s written inside reached the machine's /dev/shm", name)
	}
}
