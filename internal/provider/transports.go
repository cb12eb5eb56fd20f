package provider

import "strings"

// Transports say what shape an anthropic-kind provider's requests take.
// The wire protocol stays the Messages API either way, so a transport is a
// per-provider setting ("transport" in the config), not a kind of its own.
const (
	// TransportStandard is tandem's own request: its system prompt, its
	// user agent, only the beta flags a feature needs.
	TransportStandard = "standard"
	// TransportClaudeCodeCompat sends Claude Code's request shape (headers,
	// beta flags, system preamble, metadata) for Anthropic-compatible
	// proxies that accept nothing else. See
	// docs/decisions/claude-code-compat.md.
	TransportClaudeCodeCompat = "claude-code-compat"
)

// Transports lists every transport, in the order messages name them.
func Transports() []string { return []string{TransportStandard, TransportClaudeCodeCompat} }

// ValidTransport reports whether t is one of Transports ("" is standard).
func ValidTransport(t string) bool {
	if t == "" {
		return true
	}
	for _, x := range Transports() {
		if x == t {
			return true
		}
	}
	return false
}

// TransportList is Transports for messages.
func TransportList() string { return strings.Join(Transports(), " or ") }
