package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// cleanupDeadline is how long tandem may take to stop after SIGTERM or
// SIGHUP (the turn stopped and stored, processes killed) before it exits
// anyway. Long enough for a server to interrupt its turns and store them
// (a command gets 2 s between SIGTERM and SIGKILL), short enough that a
// service manager never needs its own SIGKILL.
const cleanupDeadline = 10 * time.Second

// signalContext returns a context cancelled at the first of sigs, so the
// work in hand stops and is stored. A second signal ends the process at
// once (exit status 128 + signal); SIGTERM and SIGHUP also end it when
// clean-up outlasts cleanupDeadline, so a goroutine blocked where
// cancellation does not reach (a read of a FIFO) never keeps tandem alive
// against a SIGTERM. A first SIGINT only cancels: an interrupted turn ends
// on its own, and a second Ctrl-C is the user's way out.
func signalContext(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	return signalContextWithin(parent, cleanupDeadline, sigs...)
}

// signalContextWithin is signalContext with grace in place of
// cleanupDeadline (`tandem serve` adds its drain timeout).
func signalContextWithin(parent context.Context, grace time.Duration, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, sigs...)
	go func() {
		first := true
		for sig := range ch {
			if !first {
				os.Exit(exitStatus(sig))
			}
			first = false
			cancel()
			if sig != os.Interrupt {
				time.AfterFunc(grace, func() { os.Exit(exitStatus(sig)) })
			}
		}
	}()
	// stop does not cancel a running deadline: what is left after the
	// command returned (closing the app) must not hang either.
	return ctx, func() { signal.Stop(ch); cancel() }
}

// interruptContext is signalContext for SIGINT and SIGTERM.
func interruptContext(parent context.Context) (context.Context, func()) {
	return signalContext(parent, os.Interrupt, syscall.SIGTERM)
}

// exitStatus is how a shell reports a process ended by sig.
func exitStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
