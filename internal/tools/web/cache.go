package web

import (
	"sync"
	"time"
)

// cache keeps fetched pages for a while, so that asking several questions
// about one page fetches it once.
type cache struct {
	mu      sync.Mutex
	ttl     time.Duration
	size    int
	entries map[string]cacheEntry
	now     func() time.Time
}

type cacheEntry struct {
	pg *page
	at time.Time
}

func newCache(ttl time.Duration, size int) *cache {
	return &cache{ttl: ttl, size: size, entries: map[string]cacheEntry{}, now: time.Now}
}

func (c *cache) get(key string) (*page, bool) {
	if c.ttl < 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || c.now().Sub(e.at) > c.ttl {
		delete(c.entries, key)
		return nil, false
	}
	return e.pg, true
}

func (c *cache) put(key string, pg *page) {
	if c.ttl < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.size {
		var oldest string
		var at time.Time
		for k, e := range c.entries {
			if oldest == "" || e.at.Before(at) {
				oldest, at = k, e.at
			}
		}
		delete(c.entries, oldest)
	}
	c.entries[key] = cacheEntry{pg: pg, at: c.now()}
}
