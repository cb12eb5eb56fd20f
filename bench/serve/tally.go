package main

import "github.com/tandem-agent/tandem/internal/event"

// tally checks one client's view of a session's stream: every seq from 1
// to the highest seen must arrive exactly once, in increasing order. Both
// the single-server and the replica clients count with it.
type tally struct {
	types      map[int64]event.Type
	last       int64 // highest seq seen
	events     int   // events counted (keep-alives are not)
	dup        int   // a seq seen before
	disordered int   // a new seq arriving below the highest seen: it filled a gap late
}

func newTally() *tally { return &tally{types: map[int64]event.Type{}} }

// add counts one event; it reports whether the seq is new.
func (t *tally) add(seq int64, typ event.Type) bool {
	t.events++
	if _, seen := t.types[seq]; seen {
		t.dup++
		return false
	}
	if seq <= t.last {
		t.disordered++
	}
	t.types[seq] = typ
	t.last = max(t.last, seq)
	return true
}

// lost counts the seqs from 1 to the highest seen that never arrived.
func (t *tally) lost() int {
	n := 0
	for i := int64(1); i <= t.last; i++ {
		if _, ok := t.types[i]; !ok {
			n++
		}
	}
	return n
}

// missing lists the first n seqs from 1 to the highest seen that never
// arrived.
func (t *tally) missing(n int) []int64 {
	var out []int64
	for i := int64(1); i <= t.last && len(out) < n; i++ {
		if _, ok := t.types[i]; !ok {
			out = append(out, i)
		}
	}
	return out
}
