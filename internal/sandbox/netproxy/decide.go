package netproxy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"github.com/tandem-agent/tandem/internal/netaddr"
)

// decide judges host:port (host normalised) for method. It returns the
// addresses to connect to — all checked, to be dialled as they are, never
// resolved again — or the Denial, or an error when the name cannot be
// resolved.
func (p *Proxy) decide(ctx context.Context, method, host string, port int) ([]netip.AddrPort, *Denial, error) {
	deny := func(rule string) *Denial { return &Denial{Host: host, Port: port, Method: method, Rule: rule} }
	e, ok := p.allow.match(host, port)
	if !ok {
		return nil, deny(RuleNotAllowed), nil
	}
	var addrs []netip.Addr
	switch ip, isIP := parseIP(host); {
	case isIP:
		addrs = []netip.Addr{ip}
	case host == "localhost":
		// Never asked of DNS, so no resolver can send it elsewhere.
		addrs = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}
	default:
		ctx, cancel := context.WithTimeout(ctx, p.opts.DialTimeout)
		defer cancel()
		found, err := p.opts.Resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot resolve %s: %w", host, err)
		}
		if len(found) == 0 {
			return nil, nil, fmt.Errorf("cannot resolve %s: no address", host)
		}
		addrs = found
	}
	out := make([]netip.AddrPort, 0, len(addrs))
	for _, ip := range addrs {
		ip = ip.Unmap().WithZone("")
		// An entry naming the host itself (a name or an IP) is the user
		// saying where to go; a wildcard is not: a subdomain someone else
		// controls could resolve to this machine or the metadata service
		// (DNS rebinding). Any one such address refuses the name.
		if kind := netaddr.Kind(ip); kind != "" && e.kind == wildcard && !p.allow.namesAddr(ip, port) {
			d := deny(RulePrivateAddress)
			d.Addr = ip
			d.Detail = fmt.Sprintf("%s resolves to %s, a %s address", host, ip, kind)
			return nil, d, nil
		}
		out = append(out, netip.AddrPortFrom(ip, uint16(port)))
	}
	return out, nil, nil
}

// dialAddrs connects to the first of addrs that answers.
func (p *Proxy) dialAddrs(ctx context.Context, addrs []netip.AddrPort) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.DialTimeout)
	defer cancel()
	var last error
	for _, a := range addrs {
		c, err := p.opts.Dial(ctx, "tcp", a.String())
		if err == nil {
			return c, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// checkedKey carries a plain HTTP request's checked addresses to the
// transport's dialer.
type checkedKey struct{}

// dialChecked is the forwarding transport's dialer: it connects only to
// the addresses decide checked for the request, and refuses to dial
// without them.
func (p *Proxy) dialChecked(ctx context.Context, _, addr string) (net.Conn, error) {
	addrs, ok := ctx.Value(checkedKey{}).([]netip.AddrPort)
	if !ok {
		return nil, fmt.Errorf("netproxy: %s was not checked before dialling (a bug in tandem)", addr)
	}
	return p.dialAddrs(ctx, addrs)
}

// parsePortOr reads a URL's or authority's port, def when empty.
func parsePortOr(s string, def int) (int, bool) {
	if s == "" {
		return def, def != 0
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= 65535 && s[0] != '+'
}
