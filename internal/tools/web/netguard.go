package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/netaddr"
)

// blockedError says a connection was refused because of where it goes.
type blockedError struct {
	host string
	ip   netip.Addr
	kind string
}

func (e *blockedError) Error() string {
	return fmt.Sprintf("%s resolves to %s, a %s address; WebFetch only fetches public addresses (allow private addresses in tandem's config to fetch it)", e.host, e.ip, e.kind)
}

// guardedClient returns an HTTP client whose dialer checks the address it
// actually connects to, after DNS resolution, so that a name resolving (or
// re-resolving) to an internal address cannot reach it.
func guardedClient(allowPrivate bool, timeout time.Duration, checkRedirect func(*http.Request, []*http.Request) error) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return fmt.Errorf("dial %s: %w", address, err)
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return fmt.Errorf("dial %s: not an IP address", address)
			}
			if kind := netaddr.Kind(ip); kind != "" {
				return &blockedError{host: host, ip: ip, kind: kind}
			}
			return nil
		}
	}
	tr := &http.Transport{
		// No proxy: the address check must see the real destination.
		Proxy:                  nil,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 1 << 20,
		MaxIdleConns:           10,
		IdleConnTimeout:        60 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: checkRedirect}
}

// isLocalHost reports whether host names this machine or a private
// network literally (localhost or a non-public IP literal).
func isLocalHost(host string) bool {
	if netaddr.IsLocalName(host) {
		return true
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return netaddr.Kind(ip) != ""
	}
	return false
}
