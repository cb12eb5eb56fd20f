package main

import (
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
)

func TestTally(t *testing.T) {
	for _, c := range []struct {
		name                  string
		seqs                  []int64
		lost, dup, disordered int
	}{
		{"in order once", []int64{1, 2, 3, 4}, 0, 0, 0},
		{"a resume replays one", []int64{1, 2, 3, 3, 4}, 0, 1, 0},
		{"a gap", []int64{1, 2, 4, 5}, 1, 0, 0},
		{"a gap at the start", []int64{3, 4}, 2, 0, 0},
		{"late", []int64{1, 3, 2, 4}, 0, 0, 1},
		{"late and again", []int64{1, 3, 2, 2}, 0, 1, 1},
	} {
		tl := newTally()
		for _, s := range c.seqs {
			tl.add(s, event.Text)
		}
		if tl.lost() != c.lost || tl.dup != c.dup || tl.disordered != c.disordered || tl.events != len(c.seqs) {
			t.Errorf("%s: lost %d dup %d disordered %d events %d, want %d %d %d %d",
				c.name, tl.lost(), tl.dup, tl.disordered, tl.events, c.lost, c.dup, c.disordered, len(c.seqs))
		}
	}
}
