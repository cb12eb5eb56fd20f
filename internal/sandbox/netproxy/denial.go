package netproxy

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// The rules a Denial names.
const (
	// RuleNotAllowed: the host is on no pattern of the allow-list.
	RuleNotAllowed = "not on sandbox.network.allow"
	// RulePrivateAddress: the host is allowed, but only by a wildcard,
	// and resolves to a loopback, private, link-local (cloud metadata)
	// or other non-public address the list does not name.
	RulePrivateAddress = "private address"
)

// Denial is one request the proxy refused. It holds no header, path or
// credential of the request: it is safe to show and to log.
type Denial struct {
	Host   string // as the client asked for it, lower case
	Port   int
	Method string // "CONNECT", "GET", ...
	Rule   string // RuleNotAllowed or RulePrivateAddress
	// Detail says more when there is more to say: "resolves to
	// 127.0.0.1, a loopback address".
	Detail string
	// Addr is, under RulePrivateAddress, the address the host resolved to.
	Addr netip.Addr
}

// hostPort is the destination as a pattern would name it.
func (d Denial) hostPort() string { return net.JoinHostPort(d.Host, strconv.Itoa(d.Port)) }

// Message is the refusal as the client reads it: the host, the rule and
// the fix. configFile names the file to edit ("" for a generic name).
func (d Denial) Message(configFile string) string {
	if configFile == "" {
		configFile = "tandem's config file"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tandem's sandbox refused a connection to %s: %s", d.hostPort(), d.Rule)
	if d.Detail != "" {
		fmt.Fprintf(&b, " (%s)", d.Detail)
	}
	b.WriteString(".\n")
	fmt.Fprintf(&b, "To let it through, add %s to sandbox.network.allow in %s, or allow it for this session.\n", d.suggestion(), configFile)
	return b.String()
}

// suggestion is the pattern (or patterns) that would have let the
// request through.
func (d Denial) suggestion() string {
	host := d.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if d.Rule == RulePrivateAddress && d.Addr.IsValid() {
		addr := d.Addr.String()
		if d.Addr.Is6() {
			addr = "[" + addr + "]"
		}
		return fmt.Sprintf("%q (the host itself, not a wildcard) or %q", host, addr)
	}
	return strconv.Quote(host)
}
