package store

import (
	"time"

	"github.com/tandem-agent/tandem/internal/message"
)

// What every backend shares with this one, so the stored forms (ids, the
// content column's JSON, titles, the "was not stored" wording) have one
// owner whichever database holds them.

// SessionIDPrefix starts every generated session id.
const SessionIDPrefix = sessionIDPrefix

// MinPrefix is the shortest id prefix GetSession resolves.
const MinPrefix = minPrefix

// NewID returns prefix + a lower-case ULID.
func NewID(prefix string) string { return newID(prefix) }

// EncodeContent is the stored JSON of a message's blocks.
func EncodeContent(blocks []message.Block) (string, error) { return encodeContent(blocks) }

// DecodeContent reads blocks back from EncodeContent's form.
func DecodeContent(s string) ([]message.Block, error) { return decodeContent(s) }

// EncodeCompaction is the compaction column: nil for ordinary messages,
// else the JSON text.
func EncodeCompaction(c *message.Compaction) (any, error) { return encodeCompaction(c) }

// TitleFrom is the session title a first user message gives.
func TitleFrom(text string) string { return titleFrom(text) }

// Describe names a message for a "was not stored" error.
func Describe(m message.Message) string { return describe(m) }

// CleanScope is a grant scope in its stored form.
func CleanScope(scope string) string { return cleanScope(scope) }

// Nanos is a time in its stored form: UTC unix nanoseconds.
func Nanos(t time.Time) int64 { return nanos(t) }

// FromNanos reads a stored time back.
func FromNanos(n int64) time.Time { return fromNanos(n) }
