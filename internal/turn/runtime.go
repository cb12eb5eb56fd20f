package turn

import (
	"fmt"
	"strings"
)

// RuntimeName names a runtime a session runs under, as `--runtime`, the
// config's "runtime" key, the HTTP API and the store spell it.
type RuntimeName string

const (
	// Native is tandem's own agent loop (internal/agent).
	Native RuntimeName = "native"
	// ClaudeCode is the Claude Code CLI driven as a subprocess
	// (internal/claudecode); its Runtime.Name reports this too.
	ClaudeCode RuntimeName = "claude-code"
	// Auto picks claude-code when a usable CLI is found and the provider
	// speaks the Anthropic protocol, native otherwise.
	Auto RuntimeName = "auto"
)

// RuntimeNames lists the runtime names a user may choose, in the order
// help texts and the API list them.
func RuntimeNames() []RuntimeName { return []RuntimeName{Native, ClaudeCode, Auto} }

// ParseRuntime reads a runtime name. Empty is not one: each caller says
// what an absent runtime means.
func ParseRuntime(s string) (RuntimeName, error) {
	for _, n := range RuntimeNames() {
		if s == string(n) {
			return n, nil
		}
	}
	return "", fmt.Errorf("unknown runtime %q: use %s", s, RuntimeList())
}

// RuntimeList is the runtime names as help and error texts write them
// ("native, claude-code or auto").
func RuntimeList() string {
	names := RuntimeNames()
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
