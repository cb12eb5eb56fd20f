package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
)

// printLatencies prints the latency lines both modes report: all (sorted)
// with what it measures, the wake-up floor of late (sorted) with where it
// was taken, and the figures per event type.
func printLatencies(all, late []time.Duration, measures, floorWhere string, byType map[event.Type][]time.Duration) {
	fmt.Printf("latency p50         %s (%s; %d live events, replays after a resume not counted)\n",
		pct(all, 0.50).Round(time.Microsecond), measures, len(all))
	fmt.Printf("latency p99         %s\n", pct(all, 0.99).Round(time.Microsecond))
	fmt.Printf("latency max         %s\n", pct(all, 1).Round(time.Microsecond))
	fmt.Printf("wake-up floor       p50 %s, p99 %s (how late a goroutine sleeping 1 ms woke, %s)\n",
		pct(late, 0.5).Round(time.Microsecond), pct(late, 0.99).Round(time.Microsecond), floorWhere)
	types := make([]event.Type, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		ds := byType[t]
		slices.Sort(ds)
		fmt.Printf("  %-14s %6d events  p50 %9s  p99 %9s\n", t, len(ds), pct(ds, 0.5).Round(time.Microsecond), pct(ds, 0.99).Round(time.Microsecond))
	}
}
