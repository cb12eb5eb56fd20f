package netproxy

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// AllowList is the set of destinations the proxy lets through: the
// patterns of sandbox.network.allow plus those allowed live for the
// session. It is safe for concurrent use; patterns are only ever added.
type AllowList struct {
	mu      sync.RWMutex
	entries []entry
}

// entryKind says how an entry matches a host.
type entryKind int

const (
	exactName entryKind = iota // "api.example.com", "localhost"
	wildcard                   // "*.example.com": strict subdomains only
	ipLiteral                  // "10.0.0.5", "[::1]"
)

// entry is one parsed pattern.
type entry struct {
	raw  string // as written, for listings and messages
	kind entryKind
	name string     // exactName: the name; wildcard: the suffix without "*."
	ip   netip.Addr // ipLiteral
	port int        // 0: any port
}

// ParseAllow parses patterns (see the package documentation for their
// grammar). An invalid pattern is an error naming it and the fix.
func ParseAllow(patterns []string) (*AllowList, error) {
	l := &AllowList{}
	for _, p := range patterns {
		e, err := parseEntry(p)
		if err != nil {
			return nil, err
		}
		l.entries = append(l.entries, e)
	}
	return l, nil
}

// Add parses pattern and adds it to the list.
func (l *AllowList) Add(pattern string) error {
	e, err := parseEntry(pattern)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.ContainsFunc(l.entries, func(x entry) bool { return x.equal(e) }) {
		l.entries = append(l.entries, e)
	}
	return nil
}

// Patterns lists the patterns in the order they were added, as written.
func (l *AllowList) Patterns() []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]string, len(l.entries))
	for i, e := range l.entries {
		out[i] = e.raw
	}
	return out
}

// clone copies the list, so a Proxy's session allowances never change
// the caller's list.
func (l *AllowList) clone() *AllowList {
	if l == nil {
		return &AllowList{}
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	return &AllowList{entries: slices.Clone(l.entries)}
}

// match finds the entry that lets host:port through, preferring one that
// names the host itself (which may then resolve to a private address)
// over a wildcard. host must be normalised (normHost).
func (l *AllowList) match(host string, port int) (entry, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	ip, isIP := parseIP(host)
	var found entry
	ok := false
	for _, e := range l.entries {
		if e.port != 0 && e.port != port {
			continue
		}
		switch {
		case e.kind == ipLiteral && isIP && e.ip == ip,
			e.kind == exactName && !isIP && e.name == host:
			return e, true
		case e.kind == wildcard && !isIP && strings.HasSuffix(host, "."+e.name):
			found, ok = e, true
		}
	}
	return found, ok
}

// namesAddr reports whether an entry lets a name resolve to ip on port:
// the list names that address, or names "localhost" and ip is loopback.
func (l *AllowList) namesAddr(ip netip.Addr, port int) bool {
	ip = ip.Unmap()
	l.mu.RLock()
	defer l.mu.RUnlock()
	for _, e := range l.entries {
		if e.port != 0 && e.port != port {
			continue
		}
		if e.kind == ipLiteral && e.ip == ip || e.kind == exactName && e.name == "localhost" && ip.IsLoopback() {
			return true
		}
	}
	return false
}

func (e entry) equal(o entry) bool {
	return e.kind == o.kind && e.name == o.name && e.ip == o.ip && e.port == o.port
}

// allowFix is the tail of every pattern error: what a valid one looks like.
const allowFix = `write a host ("api.example.com"), its subdomains ("*.example.com"), "localhost", or an IP address ("10.0.0.5", "[::1]"), each optionally with ":port"`

func parseEntry(raw string) (entry, error) {
	p := strings.ToLower(strings.TrimSpace(raw))
	bad := func(why string) (entry, error) {
		return entry{}, fmt.Errorf("sandbox.network.allow: %q %s; %s", raw, why, allowFix)
	}
	switch {
	case p == "":
		return bad("is empty")
	case strings.Contains(p, "://"):
		return bad("is a URL, not a host (leave out the scheme)")
	case strings.ContainsAny(p, "/?#@ \t"):
		return bad("is not a host name (no paths, user names or spaces)")
	}
	host, port := p, 0
	if strings.HasPrefix(p, "[") {
		end := strings.IndexByte(p, ']')
		if end < 0 {
			return bad("opens a bracket it does not close")
		}
		host, rest := p[1:end], p[end+1:]
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return bad("has brackets around something that is not an IPv6 address")
		}
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return bad("has text after the closing bracket")
			}
			if port, err = parsePort(rest[1:]); err != nil {
				return bad(err.Error())
			}
		}
		return entry{raw: raw, kind: ipLiteral, ip: ip.Unmap(), port: port}, nil
	}
	switch strings.Count(p, ":") {
	case 0:
	case 1:
		i := strings.IndexByte(p, ':')
		var err error
		if port, err = parsePort(p[i+1:]); err != nil {
			return bad(err.Error())
		}
		host = p[:i]
	default:
		return bad(`is an IPv6 address without brackets (write "[::1]" or "[::1]:443")`)
	}
	host = strings.TrimSuffix(host, ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return entry{raw: raw, kind: ipLiteral, ip: ip.Unmap(), port: port}, nil
	}
	if host == "*" {
		return bad("would allow every host (list the hosts the commands need instead)")
	}
	if suffix, ok := strings.CutPrefix(host, "*."); ok {
		if strings.Contains(suffix, "*") {
			return bad(`has more than one "*" (only a whole first label may be "*")`)
		}
		if err := checkName(suffix); err != nil {
			return bad(err.Error())
		}
		if !strings.Contains(suffix, ".") {
			return bad(fmt.Sprintf("is too broad (it matches every name under %q); name a domain such as *.example.com", suffix))
		}
		return entry{raw: raw, kind: wildcard, name: suffix, port: port}, nil
	}
	if strings.Contains(host, "*") {
		return bad(`has "*" somewhere other than a whole first label ("*.example.com")`)
	}
	if strings.HasPrefix(host, ".") {
		return bad(`starts with a dot (for its subdomains write "*` + host + `")`)
	}
	if err := checkName(host); err != nil {
		return bad(err.Error())
	}
	if host != "localhost" && !strings.Contains(host, ".") {
		return bad(`is a single-label name (only "localhost" may be one; give the full domain)`)
	}
	return entry{raw: raw, kind: exactName, name: host, port: port}, nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("has port %q, not a number from 1 to 65535", s)
	}
	return n, nil
}

// checkName accepts a DNS name of letters, digits, '-' and '_' in labels
// of 1 to 63 characters, 253 at most in all.
func checkName(name string) error {
	if len(name) > 253 {
		return fmt.Errorf("is longer than a host name may be (253 characters)")
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("has an empty or over-long label")
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("has %q, which a host name cannot hold (write an international name in its xn-- form)", c)
			}
		}
	}
	return nil
}

// parseIP reads a normalised host as an IP address.
func parseIP(host string) (netip.Addr, bool) {
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.Zone() != "" {
		return netip.Addr{}, false
	}
	return ip.Unmap(), true
}

// normHost is how the proxy reads the host a client asked for: lower
// case, no brackets, no trailing dot.
func normHost(h string) string {
	h = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
	return strings.TrimSuffix(h, ".")
}
