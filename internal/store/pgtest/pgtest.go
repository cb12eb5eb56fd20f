// Package pgtest starts a private, throwaway PostgreSQL server for tests:
// initdb into a new temporary folder, the server listening on a free
// loopback port (127.0.0.1 only; its unix socket in the same folder), a
// fresh database per test, everything stopped and deleted at the end. It
// never connects to a server it did not start. Each test gets a schema of
// its own in one database the app role owns (a schema is made and dropped
// in a fraction of a database's time); the URL's search_path points there.
//
// A test package shares one server:
//
//	var pg = pgtest.New()
//
//	func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }
//
//	func TestX(t *testing.T) { url := pg.Database(t) ... }  // a fresh, empty schema
//
// The server starts on the first Database call, so a package whose tests
// are all filtered out by -run never pays for it. Without PostgreSQL's
// binaries a test skips, naming how to install them; where CI is set (or
// TANDEM_REQUIRE_POSTGRES, which .ci/run sets) it fails instead.
//
// initdb and postgres refuse to run as root; as root the server runs as
// the "postgres" user when there is one, else as "nobody".
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Role names and passwords of the private server. The admin is the
// superuser initdb makes; the app role is what tandem connects as in
// tests: a login that owns its test databases and nothing more (no
// superuser, no CREATEDB, no CREATEROLE), as an operator would give it.
const (
	AdminUser    = "pgtest_admin"
	adminPass    = "admin-secret"
	AppUser      = "tandem_app"
	AppPassword  = "app-secret"
	readyTimeout = 30 * time.Second
)

// InstallHint names how to get PostgreSQL's server binaries.
const InstallHint = "install PostgreSQL 15 or newer (Debian/Ubuntu: apt-get install postgresql), or set TANDEM_PG_BIN to the folder holding initdb and postgres"

// Lazy is a package's shared server, started on first use.
type Lazy struct {
	Options Options
	once    sync.Once
	srv     *Server
	err     error
	dbs     atomic.Int64
}

// Options tune the server.
type Options struct {
	// Durable keeps fsync and synchronous commits on (benchmarks); tests
	// turn them off, which only matters if the machine crashes.
	Durable bool
}

// New returns a lazily started shared server.
func New() *Lazy { return &Lazy{} }

// Run runs the package's tests and then stops the server if it started.
// Use it as TestMain's body: os.Exit(pg.Run(m)).
func (l *Lazy) Run(m *testing.M) int {
	code := m.Run()
	if l.srv != nil {
		if err := l.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Server returns the shared server, starting it on first use; a test
// without PostgreSQL skips (fails in CI).
func (l *Lazy) Server(t testing.TB) *Server {
	t.Helper()
	l.once.Do(func() {
		bin, err := FindBin()
		if err != nil {
			l.err = err
			return
		}
		l.srv, l.err = Start(bin, l.Options)
	})
	if l.err != nil {
		var nb *NoBinariesError
		if errors.As(l.err, &nb) && !Required() {
			t.Skip(l.err.Error())
		}
		t.Fatal(l.err)
	}
	return l.srv
}

// Database makes a fresh schema owned by AppUser for this test and
// returns the URL that uses it (as AppUser, over TCP with a password,
// search_path set to it); it is dropped when the test ends.
func (l *Lazy) Database(t testing.TB) string {
	t.Helper()
	srv := l.Server(t)
	name := fmt.Sprintf("t%d", l.dbs.Add(1))
	if err := srv.Admin(fmt.Sprintf(`CREATE SCHEMA %s AUTHORIZATION %s`, name, AppUser)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Admin(fmt.Sprintf(`DROP SCHEMA %s CASCADE`, name)); err != nil {
			t.Errorf("drop test schema: %v", err)
		}
	})
	return srv.URL(AppUser, AppPassword, TestDB) + "&search_path=" + name
}

// TestDB is the database the test schemas live in, owned by AppUser.
const TestDB = "tandem_test"

// Required reports whether a missing PostgreSQL fails the tests instead
// of skipping them: in CI, where .ci/run installs it.
func Required() bool {
	return os.Getenv("CI") != "" || os.Getenv("TANDEM_REQUIRE_POSTGRES") != ""
}

// NoBinariesError says PostgreSQL's server binaries were not found.
type NoBinariesError struct{ Looked []string }

func (e *NoBinariesError) Error() string {
	return fmt.Sprintf("PostgreSQL server binaries not found (looked in %s): %s",
		strings.Join(e.Looked, ", "), InstallHint)
}

// FindBin returns the folder holding initdb and postgres: TANDEM_PG_BIN,
// else the newest /usr/lib/postgresql/*/bin, else where initdb on PATH
// really lives.
func FindBin() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	var looked []string
	if dir := os.Getenv("TANDEM_PG_BIN"); dir != "" {
		if has(dir) {
			return dir, nil
		}
		return "", &NoBinariesError{Looked: []string{"TANDEM_PG_BIN=" + dir}}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	looked = append(looked, "/usr/lib/postgresql/*/bin")
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	looked = append(looked, "PATH")
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && has(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
	}
	return "", &NoBinariesError{Looked: looked}
}

// pgVersion is the major version in /usr/lib/postgresql/<v>/bin.
func pgVersion(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// Server is one running private PostgreSQL.
type Server struct {
	dir   string // the temporary folder: data/, sock/, server.log
	port  int
	cmd   *exec.Cmd
	done  chan struct{} // closed when the postgres process has exited
	mu    sync.Mutex    // serialises admin statements
	admin *pgx.Conn     // the superuser's connection to TestDB, kept open
}

// Start initialises and starts a server under a new temporary folder.
func Start(bin string, opts Options) (*Server, error) {
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tandem-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{dir: dir}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	for _, sub := range []string{"", "sock"} {
		p := filepath.Join(dir, sub)
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, fmt.Errorf("pgtest: %w", err)
		}
		if cred != nil {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, fmt.Errorf("pgtest: hand %s to uid %d: %w", p, cred.Uid, err)
			}
		}
	}
	if cred != nil {
		// The user must reach the folder from its parent (the temp dir).
		if err := canTraverse(filepath.Dir(dir)); err != nil {
			return nil, err
		}
	}
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(adminPass+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if cred != nil {
		os.Chown(pw, int(cred.Uid), int(cred.Gid))
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"),
		"-U", AdminUser, "--pwfile", pw, "--auth-local=scram-sha-256", "--auth-host=scram-sha-256",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	os.Remove(pw)
	var lastErr error
	for range 3 { // a port picked free may be taken before postgres binds it
		if lastErr = s.start(bin, cred, opts); lastErr == nil {
			ok = true
			if err := s.setup(); err != nil {
				s.Stop()
				return nil, err
			}
			return s, nil
		}
	}
	return nil, lastErr
}

// credential is whom to run initdb and postgres as: nil (ourselves)
// unless we are root.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: false, Groups: []uint32{}}, nil
	}
	return nil, errors.New("pgtest: running as root and neither a postgres nor a nobody user exists to run PostgreSQL as (it refuses root): create one with useradd --system postgres")
}

// canTraverse checks that others may pass through dir.
func canTraverse(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if fi.Mode().Perm()&0o001 == 0 {
		return fmt.Errorf("pgtest: the temporary folder %s is not reachable by the unprivileged user PostgreSQL runs as: set TMPDIR to a folder others may traverse (e.g. /tmp)", dir)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs postgres on a free port and waits until it accepts
// connections. postgres is our child with a parent-death signal, so a
// killed test binary does not leave it running.
func (s *Server) start(bin string, cred *syscall.Credential, opts Options) error {
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("pgtest: pick a port: %w", err)
	}
	args := []string{"-D", filepath.Join(s.dir, "data"), "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + filepath.Join(s.dir, "sock"),
		"-c", "max_connections=200", "-c", "shared_buffers=32MB", "-c", "logging_collector=off"}
	if !opts.Durable {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = serverProcAttr(cred)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.cmd, s.done, s.port = cmd, done, port
	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-done:
			return fmt.Errorf("pgtest: postgres exited while starting:\n%s", s.Log())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.URL(AdminUser, adminPass, "postgres"))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("pgtest: postgres not ready after %s: %v\n%s", readyTimeout, err, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// setup creates the app role and the database of the test schemas.
func (s *Server) setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.AdminURL("postgres"))
	if err != nil {
		return fmt.Errorf("pgtest: connect as admin: %w", err)
	}
	defer c.Close(context.Background())
	for _, q := range []string{
		fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD '%s' NOSUPERUSER NOCREATEDB NOCREATEROLE`, AppUser, AppPassword),
		fmt.Sprintf(`CREATE DATABASE %s OWNER %s`, TestDB, AppUser),
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("pgtest: %s: %w", q, err)
		}
	}
	return nil
}

// Admin runs a statement as the superuser in TestDB.
func (s *Server) Admin(sql string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.admin == nil || s.admin.IsClosed() {
		c, err := pgx.Connect(ctx, s.AdminURL(TestDB))
		if err != nil {
			return fmt.Errorf("pgtest: connect as admin: %w", err)
		}
		s.admin = c
	}
	if _, err := s.admin.Exec(ctx, sql); err != nil {
		return fmt.Errorf("pgtest: %s: %w", sql, err)
	}
	return nil
}

// URL is a connection URL for user on this server's TCP port.
func (s *Server) URL(user, password, db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(user, password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), Path: "/" + db,
		RawQuery: "sslmode=disable"}
	return u.String()
}

// AdminURL is the superuser's URL for db.
func (s *Server) AdminURL(db string) string { return s.URL(AdminUser, adminPass, db) }

// Port is the TCP port the server listens on (127.0.0.1).
func (s *Server) Port() int { return s.port }

// PID is the postmaster's process id (bench/serve reads its memory and
// its backends').
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Log is the server's log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	return string(b)
}

// kill stops postgres at once (immediate shutdown) and waits for it.
func (s *Server) kill() {
	s.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// Stop shuts the server down (fast shutdown: sessions ended, no
// checkpoint wait beyond the shutdown's own) and deletes its folder.
func (s *Server) Stop() error {
	s.mu.Lock()
	if s.admin != nil {
		s.admin.Close(context.Background())
	}
	s.mu.Unlock()
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.kill()
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("pgtest: remove %s: %w", s.dir, err)
	}
	return nil
}

// Private starts a server for a program that is not a test (bench/): the
// URL of an empty database the app role owns, and the function that stops
// the server and deletes its folder.
func Private(opts Options) (url string, stop func() error, err error) {
	bin, err := FindBin()
	if err != nil {
		return "", nil, err
	}
	srv, err := Start(bin, opts)
	if err != nil {
		return "", nil, err
	}
	return srv.URL(AppUser, AppPassword, TestDB), srv.Stop, nil
}
