package tool

import (
	"context"
	"slices"
	"sync"
)

// Changes collects the files a call changed that its input does not
// declare: what a shell command wrote, as the checkpoint tracker's scan
// found it. A wrapper that acts on changed files (the language servers'
// diagnostics) puts one in the call's context with WithChanges; the
// tracker, wrapped inside it, adds what it found with ReportChanged. The
// context carries it because the two wrappers know nothing of each other.
type Changes struct {
	mu    sync.Mutex
	paths []string
}

type changesKey struct{}

// WithChanges returns ctx carrying a new, empty Changes.
func WithChanges(ctx context.Context) (context.Context, *Changes) {
	c := &Changes{}
	return context.WithValue(ctx, changesKey{}, c), c
}

// ReportChanged adds absolute paths to the Changes ctx carries, if any.
func ReportChanged(ctx context.Context, paths ...string) {
	c, _ := ctx.Value(changesKey{}).(*Changes)
	if c == nil || len(paths) == 0 {
		return
	}
	c.mu.Lock()
	c.paths = append(c.paths, paths...)
	c.mu.Unlock()
}

// Paths are the paths reported so far, sorted, each once.
func (c *Changes) Paths() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.paths)
	slices.Sort(out)
	return slices.Compact(out)
}
