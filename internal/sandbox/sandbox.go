package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
)

// ErrUnavailable is returned where this system cannot build the sandbox;
// the caller must refuse to run rather than run unconfined.
var ErrUnavailable = errors.New("the sandbox is not available on this system")

// Sandbox confines commands to one policy.
type Sandbox struct {
	policy Policy
	exe    string
	caps   Capabilities

	// mu guards srv, the session's sandbox process that Start uses
	// (started on first use, stopped by Close).
	mu  sync.Mutex
	srv *fastServer
	// onDenial hears what the git guard removed (OnDenial).
	onDenial func(event.Event)
}

// OnDenial sends the sandbox_denial events of the git guard (a git program
// file a sandboxed command created, removed: guard_linux.go) to f. Set it
// before Open; nil drops them.
func (s *Sandbox) OnDenial(f func(event.Event)) {
	s.mu.Lock()
	s.onDenial = f
	s.mu.Unlock()
}

// New returns a sandbox for p, started through exe (the tandem binary;
// empty: os.Executable()). It fails when the system cannot enforce p, with
// what is missing and the fix.
func New(p Policy, exe string) (*Sandbox, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: find the tandem binary to start commands through: %w", err)
		}
	}
	caps := Probe(exe)
	if err := caps.Usable(); err != nil {
		return nil, err
	}
	return &Sandbox{policy: p, exe: exe, caps: caps}, nil
}

// Policy returns the sandbox's policy.
func (s *Sandbox) Policy() Policy { return s.policy }

// Capabilities returns what the probe found.
func (s *Sandbox) Capabilities() Capabilities { return s.caps }

// Confine rewrites cmd (not yet started) so that it runs inside the
// sandbox: the tandem binary in its launcher role, in new namespaces where
// they work, starts cmd's program with cmd's arguments, environment,
// folder and descriptors. Each such command pays a start of tandem (tens
// of milliseconds); Start, through the session's sandbox process, does not.
func (s *Sandbox) Confine(cmd *exec.Cmd) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	if cmd.Process != nil {
		return errors.New("sandbox: the command has already started")
	}
	p := s.policy
	p.ExtraFiles = len(cmd.ExtraFiles)
	p.Namespaced = s.caps.UserNS && !p.NoNamespaces
	enc, err := p.encode()
	if err != nil {
		return err
	}
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	cmd.Args = append([]string{s.exe, ExecArg, enc, cmd.Path}, args...)
	cmd.Path = s.exe
	return confineAttr(cmd, p.Namespaced)
}
