package worktree

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
)

// Set is the worktrees one session made for its sub-agents: those still
// unchanged when the session ends are removed then (Close), so a session
// leaves no empty worktree or branch behind, whatever stopped its
// sub-agents.
type Set struct {
	mu    sync.Mutex
	trees []*Tree
}

// Add records t.
func (s *Set) Add(t *Tree) {
	s.mu.Lock()
	s.trees = append(s.trees, t)
	s.mu.Unlock()
}

// Drop forgets t (removed already).
func (s *Set) Drop(t *Tree) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.trees {
		if x == t {
			s.trees = append(s.trees[:i], s.trees[i+1:]...)
			return
		}
	}
}

// Close removes every recorded worktree that is unchanged and returns
// those kept (changed, or not removable: the error says why).
func (s *Set) Close(ctx context.Context) (kept []*Tree, err error) {
	s.mu.Lock()
	trees := s.trees
	s.trees = nil
	s.mu.Unlock()
	var errs []error
	for _, t := range trees {
		removed, ferr := t.Finish(ctx)
		if ferr != nil {
			errs = append(errs, ferr)
		}
		if !removed {
			kept = append(kept, t)
		}
	}
	return kept, errors.Join(errs...)
}

// AgentName is a fresh name for a sub-agent's worktree: "agent-" and 8
// random hex digits.
func AgentName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "agent-" + hex.EncodeToString(b)
}
