package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/event"
)

// FileDenial judges one path a file tool (Read, Write, Edit, Glob,
// Grep...) is about to touch by the policy the kernel enforces on
// commands, so the boundary is one thing whatever tool is used: no path
// at or under a secret path is read or written; a write lands only under
// the writable folders (the workspace, --add-dir, the private temporary
// folder, the profiles' caches, sandbox.write); a folder searched
// (folder) must not hold a secret path, since a search reads what it
// finds. path is absolute. Both the path as given and where its symbolic
// links lead are judged (a link in the workspace to ~/.ssh/id_rsa is a
// secret). ok is false when the path is refused: ev is the sandbox_denial
// event, naming the rule and the fix, and its Message is the tool's error.
//
// The protected places inside the writable folders (.git/hooks,
// .claude...) are not judged here: the permission engine asks before
// every file tool's write to them.
func (s *Sandbox) FileDenial(path string, write, folder bool) (ev event.Event, ok bool) {
	path = filepath.Clean(path)
	real := resolveExisting(path)
	verb := "reading"
	if write {
		verb = "writing"
	}
	for _, p := range []string{path, real} {
		if d := s.secretOf(p); d != "" {
			return event.Event{Type: event.SandboxDenial,
				Message: fmt.Sprintf("the sandbox refused %s %s: it is a secret path (%s), which nothing in the sandbox may read or write; only you can open it, outside tandem's sandbox (or run with --no-sandbox)", verb, path, d),
				Meta:    map[string]any{"kind": "file", "path": path, "rule": RuleSecret}}, false
		}
	}
	if folder && !write {
		if d := s.secretInside(real); d != "" {
			return event.Event{Type: event.SandboxDenial,
				Message: fmt.Sprintf("the sandbox refused searching %s: it holds a secret path (%s) a search would read; search a folder that holds none (the workspace, or a folder inside %s)", path, d, path),
				Meta:    map[string]any{"kind": "file", "path": path, "rule": RuleSecret}}, false
		}
	}
	if write && !s.writable(path, real) {
		dir := filepath.Dir(real)
		return event.Event{Type: event.SandboxDenial,
			Message: fmt.Sprintf("the sandbox refused writing %s: it is outside the writable folders; to allow it, add %s with --add-dir or to sandbox.write in ~/.config/tandem/config.json", path, dir),
			Meta:    map[string]any{"kind": "file", "path": path, "rule": RuleWriteOutside, "allow": dir}}, false
	}
	return event.Event{}, true
}

// secretOf returns the secret path p is at or under ("" if none),
// comparing with the secret paths both as written and resolved.
func (s *Sandbox) secretOf(p string) string {
	for _, d := range s.policy.DenyRead {
		if under(p, d) || under(p, resolveExisting(d)) {
			return d
		}
	}
	return ""
}

// secretInside returns an existing secret path strictly inside dir.
func (s *Sandbox) secretInside(dir string) string {
	for _, d := range s.policy.DenyRead {
		for _, x := range []string{d, resolveExisting(d)} {
			if x != dir && under(x, dir) {
				if _, err := os.Lstat(x); err == nil {
					return d
				}
			}
		}
	}
	return ""
}

// writable reports whether both p and its resolved form are under a
// write root (or the temporary folder), as the kernel would see them.
func (s *Sandbox) writable(p, real string) bool {
	roots := append(append([]string(nil), s.policy.WriteRoots...), s.policy.TempDir)
	in := func(x string) bool {
		for _, r := range roots {
			if r != "" && (under(x, filepath.Clean(r)) || under(x, resolveExisting(r))) {
				return true
			}
		}
		return false
	}
	return in(p) && in(real)
}

// resolveExisting resolves the symbolic links of p's longest existing
// prefix and appends the rest (a file not made yet lands where its
// folder's links lead).
func resolveExisting(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for cur := p; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real
		}
		if cur == filepath.Dir(cur) {
			return p
		}
		rest = append(rest, filepath.Base(cur))
	}
}
