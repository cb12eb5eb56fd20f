package acp

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
)

// The SDK reads a message of at most 10 MiB; tandem takes up to frameCap.
// A longer message's large strings wait in the connection's spool and the
// SDK gets the message with a token in their place; where tandem reads
// such a value (a prompt's text, resource or image data, a file the client
// read, a terminal's output) it takes the string back from the spool.
//
// A token is a prefix and 128 random bits, made per string, and the spool
// drops an entry once it is taken or its request is over, so a token a
// client writes itself (guessed, or seen in an echo) resolves to nothing
// and stays the literal text it is.

// spoolMin is the smallest string moved to the spool: small enough that
// any message under frameCap fits the SDK once its strings are out.
const spoolMin = 64 << 10

// spoolPrefix starts every token (the rest is 32 hex digits).
const spoolPrefix = "tandem-acp-spool:"

// spool holds one connection's large strings until tandem reads them.
type spool struct {
	mu      sync.Mutex
	entries map[string]spoolEntry
}

type spoolEntry struct {
	owner string // what ends the entry's life: a request (in:ID, out:ID)
	value string
}

func newSpool() *spool { return &spool{entries: map[string]spoolEntry{}} }

// put keeps value for owner and returns its token.
func (s *spool) put(owner, value string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	tok := spoolPrefix + hex.EncodeToString(b[:])
	s.mu.Lock()
	s.entries[tok] = spoolEntry{owner: owner, value: value}
	s.mu.Unlock()
	return tok
}

// take returns the string a token stands for and forgets it; any other
// string (a token no longer or never kept among them) comes back as is.
func (s *spool) take(v string) string {
	if s == nil || !strings.HasPrefix(v, spoolPrefix) {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[v]
	if !ok {
		return v
	}
	delete(s.entries, v)
	return e.value
}

// drop forgets what owner left untaken.
func (s *spool) drop(owner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for tok, e := range s.entries {
		if e.owner == owner {
			delete(s.entries, tok)
		}
	}
}

// size is the number of strings kept (for tests).
func (s *spool) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
