package sandbox

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// Policy is what a confined process may do. Every path is absolute.
type Policy struct {
	// WriteRoots are the folders the process may create, change and delete
	// files under (the workspace, --add-dir, the private temp folder, the
	// caches a profile names).
	WriteRoots []string `json:"write,omitempty"`
	// DenyRead are files and folders the process may not read (the secret
	// paths: ~/.ssh, cloud credentials, tandem's own token). Everything
	// else is readable.
	DenyRead []string `json:"deny_read,omitempty"`
	// ReadOnly are paths inside write roots that stay read-only (the
	// places that configure programs that run later: .git/hooks, .claude,
	// .tandem, .vscode...). Enforced by read-only bind mounts, so only with
	// namespaces.
	ReadOnly []string `json:"read_only,omitempty"`
	// GitDirs are the git folders whose program files (gitrepo.ProgramFiles)
	// tandem's guard keeps from appearing while the session's sandbox runs
	// (guard_linux.go): each root's .git folder and a linked worktree
	// root's common git folder. Not sent to the sandbox process: the guard
	// runs in tandem.
	GitDirs []string `json:"-"`
	// TempDir is the process's own temporary folder (TMPDIR); it is also a
	// write root. Empty: none is set.
	TempDir string `json:"tmp,omitempty"`
	// Network is the way out.
	Network Network `json:"network"`
	// Profiles are the toolchain profiles that added roots (for messages).
	Profiles []string `json:"profiles,omitempty"`
	// ExtraFiles is how many descriptors beyond stdio (3, 4, ...) the
	// command inherits; set by Confine from cmd.ExtraFiles.
	ExtraFiles int `json:"extra_files,omitempty"`
	// NoNamespaces makes the launcher skip the user and network namespaces
	// even where they work (the fallback path: Landlock's TCP rules); for
	// tests and for `tandem sandbox run --no-namespaces`.
	NoNamespaces bool `json:"no_ns,omitempty"`
	// namespaced is set by Confine when it started the helper in new
	// user, network, pid and mount namespaces.
	Namespaced bool `json:"ns,omitempty"`
}

// Network is the policy's way out.
type Network struct {
	// ProxySocket is the unix socket of tandem's proxy (it enforces the
	// allow-list). Empty: no network at all beyond the private loopback.
	ProxySocket string `json:"proxy_socket,omitempty"`
	// ProxyPort is the proxy's loopback TCP port, used only where there
	// is no network namespace: Landlock then allows connect to this port
	// alone. 0: no TCP connection is allowed at all.
	ProxyPort int `json:"proxy_port,omitempty"`
}

// validate checks that every path is absolute: a relative one would be
// read against whatever folder the helper started in.
func (p Policy) validate() error {
	for _, list := range [][]string{p.WriteRoots, p.DenyRead, p.ReadOnly, p.GitDirs} {
		for _, d := range list {
			if !filepath.IsAbs(d) {
				return fmt.Errorf("sandbox policy path %q is not absolute (give the full path)", d)
			}
		}
	}
	if p.TempDir != "" && !filepath.IsAbs(p.TempDir) {
		return fmt.Errorf("sandbox temp folder %q is not absolute (give the full path)", p.TempDir)
	}
	if p.Network.ProxySocket != "" && !filepath.IsAbs(p.Network.ProxySocket) {
		return fmt.Errorf("sandbox proxy socket %q is not absolute (give the full path)", p.Network.ProxySocket)
	}
	return nil
}

func (p Policy) encode() (string, error) {
	if err := p.validate(); err != nil {
		return "", err
	}
	b, err := json.Marshal(p)
	return string(b), err
}

func decodePolicy(s string) (Policy, error) {
	var p Policy
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return p, fmt.Errorf("decode sandbox policy: %w", err)
	}
	return p, p.validate()
}
