package sandbox

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// WithWrites returns a sandbox like s whose commands may also write under
// paths (absolute): for a program that keeps its own state outside the
// workspace (the claude CLI's ~/.claude). A path at or under a secret path
// still gets no rights at all. s itself is not changed.
func (s *Sandbox) WithWrites(paths ...string) (*Sandbox, error) {
	p := s.policy
	p.WriteRoots = append(slices.Clone(p.WriteRoots), paths...)
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &Sandbox{policy: p, exe: s.exe, caps: s.caps}, nil
}

// WithProxyPort returns a sandbox like s whose commands reach the proxy on
// loopback TCP port: the way out where there are no namespaces (the
// Landlock TCP rules allow connecting to that port alone). With
// namespaces the port is not used (the bridge carries the unix socket).
func (s *Sandbox) WithProxyPort(port int) *Sandbox {
	p := s.policy
	p.Network.ProxyPort = port
	return &Sandbox{policy: p, exe: s.exe, caps: s.caps}
}

// ClaudeCLIWrites are the places the claude CLI keeps its own state,
// which it must write to work: its config folder (configDir, from
// CLAUDE_CONFIG_DIR; empty: ~/.claude), ~/.claude.json and its backup
// (files: Landlock can grant a file, not a name pattern), its caches and
// state under ~/.cache, ~/.local/state and ~/.local/share. Nothing else
// of the home folder becomes writable.
func ClaudeCLIWrites(home, configDir string) []string {
	if configDir == "" {
		configDir = filepath.Join(home, ".claude")
	}
	out := []string{configDir}
	if home == "" {
		return out
	}
	for _, p := range []string{".claude", ".claude.json", ".claude.json.backup", ".cache/claude", ".cache/claude-cli-nodejs",
		".local/state/claude", ".local/share/claude"} {
		out = append(out, filepath.Join(home, filepath.FromSlash(p)))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Exe is the tandem binary the sandbox starts commands through.
func (s *Sandbox) Exe() string { return s.exe }

// ProviderHost is what the network allow-list needs for a model provider
// at baseURL ("": Anthropic's API): an allow-list pattern (the host, with
// its port when the URL names one), and, when the host is a loopback
// address or localhost, its host:port: loopback inside the sandbox is the
// sandbox's own, so such a provider is reached through a forward
// (WrapLoopback).
func ProviderHost(baseURL string) (pattern, loopback string, err error) {
	if baseURL == "" {
		return "api.anthropic.com", "", nil
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", "", fmt.Errorf("provider base URL %q: want http(s)://host[:port][/path] to put its host on the sandbox's allow-list", baseURL)
	}
	host := strings.ToLower(u.Hostname())
	pattern = host
	if strings.Contains(host, ":") {
		pattern = "[" + host + "]"
	}
	if u.Port() != "" {
		pattern += ":" + u.Port()
	}
	if err := CheckHost(pattern); err != nil {
		return "", "", fmt.Errorf("provider base URL %q: %w", baseURL, err)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return pattern, "", nil
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		pattern += ":" + port
	}
	return pattern, net.JoinHostPort(host, port), nil
}
