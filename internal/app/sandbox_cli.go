package app

import (
	"fmt"
	"os/exec"

	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/sandbox"
)

// cliConfine is how the claude-code runtime starts the claude CLI inside
// the session's sandbox (nil when the sandbox is off): the session's
// policy, plus writes to the CLI's own state (~/.claude, ~/.claude.json,
// its caches: sandbox.ClaudeCLIWrites) and its provider's host on the
// session's allow-list. A provider on loopback (a local gateway) is
// reached through the sandbox's loopback forward, since loopback inside is
// the sandbox's own. The commands the CLI runs are its children: they
// carry the same boundary.
func (eq *Equipment) cliConfine(cc claudecode.Config, baseURL string) (func(*exec.Cmd) error, error) {
	if eq.sandbox == nil {
		return nil, nil
	}
	getenv := eq.w.app.opts.Getenv
	configDir := firstNonEmpty(cc.Env["CLAUDE_CONFIG_DIR"], getenv("CLAUDE_CONFIG_DIR"))
	sb, err := eq.sandbox.WithWrites(sandbox.ClaudeCLIWrites(eq.w.app.home(), configDir)...)
	if err != nil {
		return nil, fmt.Errorf("the claude CLI's sandbox: %w", err)
	}
	// The base URL the CLI will use: the provider's, else what its
	// environment gives it.
	baseURL = firstNonEmpty(baseURL, cc.Env["ANTHROPIC_BASE_URL"], getenv("ANTHROPIC_BASE_URL"))
	pattern, loopback, err := sandbox.ProviderHost(baseURL)
	if err != nil {
		return nil, fmt.Errorf("the claude CLI's sandbox: %w", err)
	}
	if err := eq.egress.Allow(pattern); err != nil {
		return nil, fmt.Errorf("the claude CLI's sandbox: allow its provider %s: %w", pattern, err)
	}
	return func(cmd *exec.Cmd) error {
		if loopback != "" {
			sandbox.WrapLoopback(cmd, sb.Exe(), loopback)
		}
		return sb.Confine(cmd)
	}, nil
}

// denials infers what the sandbox refused a finished process from its
// output (sandbox_denial events); nil when the sandbox is off.
func (eq *Equipment) denials() func(output, cwd string) []event.Event {
	if eq.sandbox == nil {
		return nil
	}
	return eq.sandbox.DenialEvents
}
