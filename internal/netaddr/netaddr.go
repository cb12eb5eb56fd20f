// Package netaddr is the one rule for which addresses are not public:
// loopback, private (RFC 1918, IPv6 unique-local, carrier-grade NAT),
// link-local (where cloud metadata services answer), unspecified and
// multicast. WebFetch's dial guard and the sandbox's egress proxy both
// judge addresses with it, so the two cannot drift apart.
package netaddr

import (
	"net/netip"
	"strings"
)

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Kind names why ip is not public ("loopback", "private", "link-local",
// "unspecified", "multicast"), or "" when it is public. An IPv4 address
// written in IPv6 form (::ffff:127.0.0.1) is judged as the IPv4 address.
func Kind(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate(), cgnat.Contains(ip):
		// cgnat also holds 100.100.100.200, Alibaba Cloud's metadata
		// service; fd00:ec2::254 (AWS) is unique-local, so private.
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		// 169.254.169.254: the metadata service of most clouds.
		return "link-local"
	case ip.IsUnspecified(), ip.Is4() && ip.As4()[0] == 0:
		return "unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	return ""
}

// IsLocalName reports whether host names this machine by name:
// "localhost" or a name under it (RFC 6761), any case, with or without
// the trailing dot.
func IsLocalName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}
