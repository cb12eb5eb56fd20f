// Package netproxy is the sandbox's only way out to the network: an
// egress proxy that lets a sandboxed command reach the hosts on
// sandbox.network.allow and refuses everything else with a message
// naming the host, the rule and the fix (docs/sandbox-network.md).
//
// A command in the sandbox's private network namespace sees
// HTTP_PROXY/HTTPS_PROXY pointing at 127.0.0.1 inside it, where Forward
// splices each connection to the proxy's unix socket outside; the Proxy
// serves that socket.
//
//	allow, err := netproxy.ParseAllow(cfg.Network.Allow)
//	p := netproxy.New(allow, netproxy.Options{OnDenial: report, ConfigFile: paths.UserFile})
//	go p.Serve(unixListener)
//	defer p.Close()
//	p.Allow("api.example.com") // "allow it for this session"
//
// # What it speaks
//
// CONNECT host:port opens a tunnel (https, and any other TLS or TCP
// protocol a client tunnels); a request with an absolute http:// URI is
// forwarded to the origin in origin form, with the hop-by-hop headers
// and every Proxy-* header (Proxy-Authorization included) removed and
// nothing added. Requests are parsed by net/http. Nothing is logged.
//
// # Patterns
//
// The semantics are those of Claude Code's sandbox-runtime
// (allowedDomains), plus ports and IP addresses:
//
//   - "api.example.com": that host only (not its subdomains); case and a
//     trailing dot do not matter. A name needs a dot, except "localhost".
//   - "*.example.com": every subdomain at any depth (a.example.com,
//     x.y.example.com) but not example.com itself; list both for both.
//     "*", "*.com" (a wildcard over a single label) and "*" anywhere but a
//     whole first label are refused as too broad or unclear.
//   - "localhost": this machine (127.0.0.1 and ::1, never asked of DNS).
//   - "10.0.0.5", "[::1]": that address; IPv6 needs the brackets.
//   - Any of them with ":port" matches that port only; without, any port.
//
// ParseAllow refuses an invalid pattern with an error naming it and what
// to write instead.
//
// # Deciding
//
// The proxy decides by the host name the client asked for, before any
// look-up: a host on no pattern is refused (RuleNotAllowed) without being
// resolved. An allowed name is then resolved by the proxy, once; if a
// name allowed only by a wildcard resolves to a loopback, private,
// link-local (cloud metadata), unspecified or multicast address
// (internal/netaddr), it is refused (RulePrivateAddress: DNS rebinding —
// anyone who can make a subdomain can point it at this machine), unless
// the list names that address, or names "localhost" and the address is
// loopback. A host the list names itself (its name or its IP) may go
// anywhere, loopback included: the user said where. The proxy connects to
// the addresses it checked, never resolving again.
//
// A refusal is a 403 whose body names the host, the rule and the pattern
// to add, and one call of Options.OnDenial with a Denial, which holds no
// header, path or credential. A name that does not resolve or an origin
// that does not answer is a 502, not a denial.
//
// # Bounds
//
// Request headers are capped (64 KiB) and must arrive within
// HeaderTimeout; a tunnel or kept-alive connection with no byte either way
// for IdleTimeout is closed; at most MaxConns client connections are
// served at once across the proxy's listeners (more wait to be accepted).
// Close closes the listeners, every client connection and tunnel, and
// returns once every goroutine serving them has ended.
package netproxy
