// Package chatfake holds what the chat platforms' loopback fakes (tgfake,
// slackfake, dcfake, lkfake) share: how a test, or a fake's own long poll,
// waits for a fake's state to change.
package chatfake

import (
	"sync"
	"time"
)

// Changes is a channel closed and replaced on every change of a fake's
// state. Its methods are called with the fake's own lock held, the lock
// that guards the state it signals; the zero value is ready.
type Changes struct{ ch chan struct{} }

// Touch tells every waiter the state changed.
func (c *Changes) Touch() {
	if c.ch != nil {
		close(c.ch)
	}
	c.ch = make(chan struct{})
}

// Next is closed at the next Touch.
func (c *Changes) Next() <-chan struct{} {
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// Wait blocks until cond holds (checked at first and after every change,
// without mu held: cond takes it through the fake's methods) or the
// timeout, and reports whether it held.
func Wait(mu sync.Locker, c *Changes, timeout time.Duration, cond func() bool) bool {
	deadline := time.After(timeout)
	for {
		mu.Lock()
		ch := c.Next()
		mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return cond()
		}
	}
}
