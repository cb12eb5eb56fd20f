package main

import (
	"slices"
	"sync"
	"time"
)

// floor measures, while the benchmark runs, how late a goroutine sleeping
// 1 ms wakes up in this process: the machine's and Go scheduler's share
// of any latency figure. On a shared machine its tail is often the
// server's tail too; no event can be written sooner than a goroutine can
// be woken to write it.
type floor struct {
	stop chan struct{}
	done sync.WaitGroup
	late []time.Duration
}

func startFloor() *floor {
	f := &floor{stop: make(chan struct{})}
	f.done.Add(1)
	go func() {
		defer f.done.Done()
		for {
			select {
			case <-f.stop:
				return
			default:
			}
			t := time.Now()
			time.Sleep(time.Millisecond)
			f.late = append(f.late, time.Since(t)-time.Millisecond)
		}
	}()
	return f
}

// end stops the probe and returns its sorted lateness.
func (f *floor) end() []time.Duration {
	close(f.stop)
	f.done.Wait()
	slices.Sort(f.late)
	return f.late
}
