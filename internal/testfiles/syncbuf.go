package testfiles

import (
	"strings"
	"sync"
)

// SyncBuffer is a strings.Builder that goroutines may write to while a
// test reads it: a logger's output, say.
type SyncBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}
