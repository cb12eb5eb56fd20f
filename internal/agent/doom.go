package agent

import (
	"bytes"
	"encoding/json"
	"sync"
)

// doomTracker notices a model calling the same tool with the same input
// over and over (a common failure of weaker models) across steps.
type doomTracker struct {
	mu        sync.Mutex // read-only calls run in parallel
	threshold int
	lastKey   string
	count     int
}

// observe records a call and reports whether it should be refused.
func (d *doomTracker) observe(name string, input json.RawMessage) bool {
	key := name + "\x00" + canonicalJSON(input)
	d.mu.Lock()
	defer d.mu.Unlock()
	if key == d.lastKey {
		d.count++
	} else {
		d.lastKey, d.count = key, 1
	}
	return d.count > d.threshold
}

// canonicalJSON normalises key order and spacing so {"a":1,"b":2} and
// { "b": 2, "a": 1 } count as the same input.
func canonicalJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(bytes.TrimSpace(raw))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}
