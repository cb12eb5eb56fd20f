package netproxy

import (
	"net"
	"testing"
	"testing/synctest"
)

// chanListener hands out the connections sent on ch.
type chanListener struct {
	ch     chan net.Conn
	closed chan struct{}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}
func (l *chanListener) Close() error   { close(l.closed); return nil }
func (l *chanListener) Addr() net.Addr { return &net.UnixAddr{Name: "test", Net: "unix"} }

// Past the cap, a connection waits until one being served closes.
func TestLimitListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		raw := &chanListener{ch: make(chan net.Conn, 2), closed: make(chan struct{})}
		ln := newLimitListener(raw, make(chan struct{}, 1))
		accepted := make(chan net.Conn, 2)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				accepted <- c
			}
		}()
		var ends []net.Conn
		for range 2 {
			a, b := net.Pipe()
			ends = append(ends, b)
			raw.ch <- a
		}
		synctest.Wait()
		if len(accepted) != 1 {
			t.Fatalf("%d connections accepted with a cap of 1", len(accepted))
		}
		first := <-accepted
		first.Close()
		first.Close() // a second Close releases nothing more
		synctest.Wait()
		if len(accepted) != 1 {
			t.Fatalf("after the first closed, %d more accepted, want 1", len(accepted))
		}
		(<-accepted).Close()
		ln.Close()
		for _, e := range ends {
			e.Close()
		}
	})
}
