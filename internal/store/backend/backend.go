// Package backend holds what every store backend shares beyond the
// contract in internal/store: generated ids, the stored form of a
// message's content and compaction, the title taken from a first prompt,
// session id prefix rules, grant scopes, workspace containment, the
// walk over sub-agent runs, and how a message that was not stored is
// named. A backend computes these here so both backends answer alike.
package backend

import (
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// NewID returns prefix + a lower-case ULID: sortable by creation time,
// and unique across processes and machines without coordination.
func NewID(prefix string) string {
	return prefix + strings.ToLower(ulid.Make().String())
}

// Nanos and FromNanos convert times to and from their stored form
// (nanoseconds since the Unix epoch, UTC).
func Nanos(t time.Time) int64 { return t.UTC().UnixNano() }

// FromNanos is the time Nanos stored.
func FromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// Clock is a store's clock: time.Now when nil. Tests give their own.
type Clock func() time.Time

// Now is the clock's time in UTC without its monotonic reading.
func (c Clock) Now() time.Time {
	if c == nil {
		return time.Now().UTC().Round(0)
	}
	return c().UTC().Round(0)
}
