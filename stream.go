package tandem

import (
	"context"
	"iter"
)

// Stream runs a turn as Run does and yields its events as they happen,
// for a program that would rather range over a turn than pass a callback:
//
//	for e, err := range s.Stream(ctx, "fix the test", nil) {
//		if err != nil { ... }           // the turn could not run
//		if e.Type == tandem.EventResult { ... }
//	}
//
// The result event carries what Run's Result does. Stopping the loop
// early interrupts the turn (what finished stays stored) and waits for it
// to end. An error, when there is one, comes last with a zero Event.
func (s *Session) Stream(ctx context.Context, prompt string, opts *RunOptions) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var o RunOptions
		if opts != nil {
			o = *opts
		}
		events := make(chan Event)
		stopped := make(chan struct{})
		user := o.OnEvent
		o.OnEvent = func(e Event) {
			if user != nil {
				user(e)
			}
			select {
			case events <- e:
			case <-stopped: // the loop ended: the rest of the turn goes unseen
			}
		}
		done := make(chan error, 1)
		go func() {
			_, err := s.Run(ctx, prompt, &o)
			done <- err
		}()
		for {
			select {
			case e := <-events:
				if !yield(e, nil) {
					close(stopped)
					cancel()
					<-done
					return
				}
			case err := <-done:
				// Every event of the turn was handed over before Run
				// returned: the callback blocks until the loop takes it.
				close(stopped)
				if err != nil {
					yield(Event{}, err)
				}
				return
			}
		}
	}
}
