package netproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
)

// serveHTTP answers one request a client sent the proxy: a CONNECT
// becomes a tunnel, an absolute-URI request is forwarded.
func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.enter() {
		http.Error(w, "tandem's sandbox proxy is shutting down", http.StatusServiceUnavailable)
		return
	}
	defer p.handlers.Done()
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	p.plain(w, r)
}

// connect opens a tunnel to the authority of a CONNECT request.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, portText, err := net.SplitHostPort(r.Host)
	port, ok := parsePortOr(portText, 0)
	if err != nil || host == "" || !ok {
		w.Header().Set("Connection", "close")
		http.Error(w, fmt.Sprintf("tandem's sandbox proxy: CONNECT needs host:port, got %q", r.Host), http.StatusBadRequest)
		return
	}
	host = normHost(host)
	addrs, denial, err := p.decide(r.Context(), r.Method, host, port)
	if denial != nil || err != nil {
		w.Header().Set("Connection", "close")
		p.refuse(w, denial, host, port, err)
		return
	}
	up, err := p.dialAddrs(r.Context(), addrs)
	if err != nil {
		w.Header().Set("Connection", "close")
		p.refuse(w, nil, host, port, err)
		return
	}
	client, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		http.Error(w, "tandem's sandbox proxy: cannot open a tunnel on this connection", http.StatusInternalServerError)
		return
	}
	if !p.track(client, up) {
		client.Close()
		up.Close()
		return
	}
	defer p.untrack(client, up)
	_, err = brw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n")
	if err == nil {
		err = brw.Flush()
	}
	// Bytes the client sent right behind its request (a TLS hello) sit
	// in the server's buffer; they go first.
	if n := brw.Reader.Buffered(); err == nil && n > 0 {
		var early []byte
		early, err = brw.Reader.Peek(n)
		if err == nil {
			_, err = up.Write(early)
		}
	}
	if err != nil {
		client.Close()
		up.Close()
		return
	}
	splice(client, up, p.opts.IdleTimeout)
}

// plain forwards an absolute-URI http request in origin form.
func (p *Proxy) plain(w http.ResponseWriter, r *http.Request) {
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "tandem's sandbox proxy: this is an HTTP proxy; send absolute URLs (GET http://host/path) or use CONNECT", http.StatusBadRequest)
		return
	}
	if !strings.EqualFold(r.URL.Scheme, "http") {
		http.Error(w, fmt.Sprintf("tandem's sandbox proxy: %s URLs go through CONNECT, not as a plain request", r.URL.Scheme), http.StatusBadRequest)
		return
	}
	port, ok := parsePortOr(r.URL.Port(), 80)
	if !ok {
		http.Error(w, fmt.Sprintf("tandem's sandbox proxy: bad port in %q", r.URL.Host), http.StatusBadRequest)
		return
	}
	host := normHost(r.URL.Hostname())
	addrs, denial, err := p.decide(r.Context(), r.Method, host, port)
	if denial != nil || err != nil {
		p.refuse(w, denial, host, port, err)
		return
	}
	ctx := context.WithValue(r.Context(), checkedKey{}, addrs)
	p.forward.ServeHTTP(w, r.WithContext(ctx))
}

// rewrite prepares a forwarded request: ReverseProxy has removed the
// hop-by-hop headers (Proxy-Authorization among them); every other
// Proxy-* header goes too. No X-Forwarded-* is added.
func rewrite(pr *httputil.ProxyRequest) {
	for k := range pr.Out.Header {
		if strings.HasPrefix(k, "Proxy-") {
			delete(pr.Out.Header, k)
		}
	}
	pr.Out.RequestURI = ""
}

// refuse answers a refused request: 403 with the denial's message (and
// OnDenial told), or 502 when the origin could not be resolved or
// reached.
func (p *Proxy) refuse(w http.ResponseWriter, d *Denial, host string, port int, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if d != nil {
		if p.opts.OnDenial != nil {
			p.opts.OnDenial(*d)
		}
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, d.Message(p.opts.ConfigFile))
		return
	}
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintf(w, "tandem's sandbox proxy could not reach %s: %v\n", net.JoinHostPort(host, fmt.Sprint(port)), err)
}

// forwardError answers a forwarded request the origin failed.
func (p *Proxy) forwardError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) {
		return // the client went away, or the proxy is closing
	}
	port, _ := parsePortOr(r.URL.Port(), 80)
	p.refuse(w, nil, normHost(r.URL.Hostname()), port, err)
}
