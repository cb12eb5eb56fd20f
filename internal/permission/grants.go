package permission

import (
	"context"
	"sync"
)

// GrantStore persists "allow always" rules chosen with project or user
// scope (the lead wires it to config files or the session store).
type GrantStore interface {
	AddRule(ctx context.Context, scope Scope, r Rule) error
}

// MemoryGrantStore keeps grants in memory (tests, embedders).
type MemoryGrantStore struct {
	mu    sync.Mutex
	rules map[Scope][]Rule
}

// NewMemoryGrantStore returns an empty store.
func NewMemoryGrantStore() *MemoryGrantStore {
	return &MemoryGrantStore{rules: map[Scope][]Rule{}}
}

// AddRule records r under scope.
func (m *MemoryGrantStore) AddRule(_ context.Context, scope Scope, r Rule) error {
	m.mu.Lock()
	m.rules[scope] = append(m.rules[scope], r)
	m.mu.Unlock()
	return nil
}

// Rules returns the rules saved under scope.
func (m *MemoryGrantStore) Rules(scope Scope) []Rule {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Rule(nil), m.rules[scope]...)
}
