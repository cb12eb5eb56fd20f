package permission

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/tandem-agent/tandem/internal/event"
)

// TestReplyEmittedBeforeTheAskerGoesOn: permission_reply reaches the
// front ends before the turn it unblocks goes on (runs the tool, ends):
// a stream that saw the result without the reply before it showed a
// question never answered (TestPermissionReply failed so under load).
func TestReplyEmittedBeforeTheAskerGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var answered atomic.Bool // the asker's Ask has returned
		var beforeAsker atomic.Bool
		b := NewBroker(func(e event.Event) {
			if e.Type != event.PermissionReply {
				return
			}
			// Let every other goroutine run until it blocks: an asker
			// already woken would return now.
			synctest.Wait()
			beforeAsker.Store(!answered.Load())
		})
		asked := make(chan string, 1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			go func() {
				synctest.Wait()
				for _, q := range b.Pending() {
					asked <- q.RequestID
				}
			}()
			if _, err := b.Ask(context.Background(), Question{ToolName: "Write"}); err != nil {
				t.Error(err)
			}
			answered.Store(true)
		}()
		id := <-asked
		if err := b.Reply(id, Answer{Decision: AllowOnce}); err != nil {
			t.Fatal(err)
		}
		<-done
		if !beforeAsker.Load() {
			t.Error("permission_reply was emitted after the asker went on with the answer")
		}
	})
}
