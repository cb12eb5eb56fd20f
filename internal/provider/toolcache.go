package provider

import (
	"bytes"
	"sync"
)

// maxToolSets bounds how many distinct tool sets an adapter keeps converted.
// A session sends the same set on every step; sub-agents and plan mode add a
// few more.
const maxToolSets = 8

// ToolCache keeps the wire form of tool sets already converted, so that a
// session decodes and re-encodes its tool schemas once rather than on every
// step. Entries are found by comparing the specs themselves (a byte compare
// of the schemas), so a changed schema can never be served stale.
type ToolCache[T any] struct {
	mu      sync.Mutex
	entries []toolCacheEntry[T] // least recently used first
}

type toolCacheEntry[T any] struct {
	specs []ToolSpec
	val   T
}

// Get returns the converted form of specs, building it on a miss. A build
// error is not cached.
func (c *ToolCache[T]) Get(specs []ToolSpec, build func([]ToolSpec) (T, error)) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if sameSpecs(e.specs, specs) {
			if i != len(c.entries)-1 {
				c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			}
			return e.val, nil
		}
	}
	val, err := build(specs)
	if err != nil {
		return val, err
	}
	if len(c.entries) >= maxToolSets {
		c.entries = append(c.entries[:0:0], c.entries[1:]...)
	}
	c.entries = append(c.entries, toolCacheEntry[T]{specs: cloneSpecs(specs), val: val})
	return val, nil
}

func sameSpecs(a, b []ToolSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description ||
			!bytes.Equal(a[i].InputSchema, b[i].InputSchema) {
			return false
		}
	}
	return true
}

// cloneSpecs copies the schemas too: the caller owns its RawMessage buffers
// and may reuse them.
func cloneSpecs(specs []ToolSpec) []ToolSpec {
	out := make([]ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = ToolSpec{Name: s.Name, Description: s.Description, InputSchema: bytes.Clone(s.InputSchema)}
	}
	return out
}

// Len is the number of tool sets kept.
func (c *ToolCache[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
