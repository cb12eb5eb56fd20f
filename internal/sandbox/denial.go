package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
)

// The rules a denial names.
const (
	RuleSecret       = "sandbox: secret path (not readable)"
	RuleWriteOutside = "sandbox: outside the writable folders"
	RuleNetwork      = "sandbox.network.allow"
	RuleReadOnly     = "sandbox: protected place (read-only)"
	// RuleGitProgram: a git program file created inside the sandbox,
	// removed by the git guard (guard_linux.go).
	RuleGitProgram = "sandbox: git program file created inside the sandbox"
)

// deniedPath finds the paths in EACCES/EPERM/EROFS messages of the usual shapes:
// `cat: PATH: Permission denied`, `sh: 1: cannot create PATH: Permission
// denied`, Python's `Permission denied: 'PATH'`, Go's `open PATH:
// permission denied`, Node's `EACCES: permission denied, open 'PATH'`.
var deniedPath = []*regexp.Regexp{
	regexp.MustCompile(`(?i)EACCES: permission denied, \w+ '([^'\n]+)'`), // Node
	regexp.MustCompile(`(?i)permission denied: '([^'\n]+)'`),
	regexp.MustCompile(`(?i)(?:cannot create |open |cannot open |^|[\s'"])([^\s:'"]*/[^\s:'"]*|[^\s:'"/]+\.[^\s:'"/]+)['"]?: (?:permission denied|operation not permitted|read-only file system)`),
}

// DenialEvents infers what the sandbox refused a command from its
// output, since Landlock tells userspace nothing beyond EACCES: each path
// that an error message names and the policy forbids (a secret path, a
// write outside the writable folders, a write to a read-only place: EROFS
// from its bind mount) becomes a sandbox_denial event with
// the rule and the allowance that would permit it. A path the policy
// allows is left out (the refusal was the file's own permissions).
// Network denials come exact from the proxy instead.
func (s *Sandbox) DenialEvents(output, cwd string) []event.Event {
	var out []event.Event
	seen := map[string]bool{}
	for _, re := range deniedPath {
		for _, m := range re.FindAllStringSubmatch(output, -1) {
			p := m[1]
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			p = filepath.Clean(p)
			if seen[p] {
				continue
			}
			seen[p] = true
			if ev, ok := s.fileDenial(p); ok {
				out = append(out, ev)
			}
		}
	}
	return out
}

func (s *Sandbox) fileDenial(p string) (event.Event, bool) {
	if d := deniedBy(p, s.policy.DenyRead); d != "" {
		return event.Event{Type: event.SandboxDenial,
			Message: fmt.Sprintf("the sandbox refused %s: a secret path (%s); only a command run outside the sandbox, with your approval, can read it", p, d),
			Meta:    map[string]any{"kind": "file", "path": p, "rule": RuleSecret, "inferred": true}}, true
	}
	// Only mounts make them read-only (with namespaces); without, a refusal
	// there is the file's own mode.
	for _, ro := range s.policy.ReadOnly {
		if s.caps.UserNS && !s.policy.NoNamespaces && under(p, ro) {
			return event.Event{Type: event.SandboxDenial,
				Message: fmt.Sprintf("the sandbox refused a write to %s: %s stays read-only inside the sandbox, since it configures programs that run later outside it; change it outside the sandbox, with your approval", p, ro),
				Meta:    map[string]any{"kind": "file", "path": p, "rule": RuleReadOnly, "inferred": true}}, true
		}
	}
	for _, r := range append(append([]string(nil), s.policy.WriteRoots...), s.policy.TempDir) {
		if r != "" && under(p, r) {
			return event.Event{}, false
		}
	}
	dir := filepath.Dir(p)
	return event.Event{Type: event.SandboxDenial,
		Message: fmt.Sprintf("the sandbox refused a write to %s: outside the writable folders; to allow it, add %s with --add-dir or to sandbox.write", p, dir),
		Meta:    map[string]any{"kind": "file", "path": p, "rule": RuleWriteOutside, "allow": dir, "inferred": true}}, true
}

// NetworkDenial is the event for a connection the proxy refused.
func NetworkDenial(host string, port int, method, rule, message string) event.Event {
	return event.Event{Type: event.SandboxDenial, Message: strings.TrimSpace(message),
		Meta: map[string]any{"kind": "network", "host": host, "port": port, "method": method, "rule": rule, "allow": host}}
}
