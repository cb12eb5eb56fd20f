package main

import (
	"testing"
	"time"
)

// chatWait returns what the bridge end-to-end tests wait with: up to 30 s
// (poll is the platform fake's Wait) for a message of the chat (messages
// lists them) that cond accepts, the test failing with the chat's
// messages and the bridge's stderr otherwise. One for every platform's
// fake, whose Message types differ.
func chatWait[M any](t *testing.T, poll func(time.Duration, func() bool) bool, messages func() []M, stderr func() string) func(what string, cond func(M) bool) M {
	return func(what string, cond func(M) bool) M {
		t.Helper()
		var found M
		if !poll(30*time.Second, func() bool {
			for _, m := range messages() {
				if cond(m) {
					found = m
					return true
				}
			}
			return false
		}) {
			t.Fatalf("timed out waiting for %s; messages: %+v\nstderr:\n%s", what, messages(), stderr())
		}
		return found
	}
}
