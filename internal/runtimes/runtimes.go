// Package runtimes names the runtimes a session may run under. It is a
// leaf, so configuration, the store and front ends read the names without
// linking a runtime.
package runtimes

import (
	"fmt"
	"strings"
)

// Name names a runtime a session runs under, as `--runtime`, the
// config's "runtime" key, the HTTP API and the store spell it.
type Name string

const (
	// Native is tandem's own agent loop (internal/agent).
	Native Name = "native"
	// ClaudeCode is the Claude Code CLI driven as a subprocess
	// (internal/claudecode); its Runtime.Name reports this too.
	ClaudeCode Name = "claude-code"
	// Auto picks claude-code when a usable CLI is found and the provider
	// speaks the Anthropic protocol, native otherwise.
	Auto Name = "auto"
)

// Names lists the runtime names a user may choose, in the order
// help texts and the API list them.
func Names() []Name { return []Name{Native, ClaudeCode, Auto} }

// Parse reads a runtime name. Empty is not one: each caller says
// what an absent runtime means.
func Parse(s string) (Name, error) {
	for _, n := range Names() {
		if s == string(n) {
			return n, nil
		}
	}
	return "", fmt.Errorf("unknown runtime %q: use %s", s, List())
}

// List is the runtime names as help and error texts write them
// ("native, claude-code or auto").
func List() string {
	names := Names()
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n)
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
