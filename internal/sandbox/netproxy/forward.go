package netproxy

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// Forward accepts connections on ln (inside the sandbox's network
// namespace: 127.0.0.1, the address HTTP_PROXY names there) and splices
// each to a new connection to the proxy's unix socket at socketPath, the
// only way out of that namespace. It returns nil once ctx is done, with
// ln and every connection closed and every goroutine it started ended;
// an error if ln fails otherwise.
func Forward(ctx context.Context, ln net.Listener, socketPath string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu     sync.Mutex
		closed bool
		conns  = map[net.Conn]struct{}{}
		wg     sync.WaitGroup
	)
	// track registers c for the shutdown below; false once it has begun.
	track := func(c net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		if !closed {
			conns[c] = struct{}{}
		}
		return !closed
	}
	untrack := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		delete(conns, c)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		ln.Close()
		mu.Lock()
		closed = true
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	var dialer net.Dialer
	var err error
	for {
		var c net.Conn
		c, err = ln.Accept()
		if err != nil {
			break
		}
		if !track(c) {
			c.Close()
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer untrack(c)
			up, err := dialer.DialContext(ctx, "unix", socketPath)
			if err != nil {
				c.Close()
				return
			}
			if !track(up) {
				c.Close()
				up.Close()
				return
			}
			defer untrack(up)
			splice(c, up, 0)
		}()
	}
	if ctx.Err() != nil {
		err = nil
	} else {
		err = fmt.Errorf("netproxy: forwarding to %s: %w", socketPath, err)
	}
	cancel()
	<-stopped
	wg.Wait()
	return err
}
