package app

import (
	"context"

	"github.com/tandem-agent/tandem/internal/skills"
)

// UserShell runs a command the user typed at the terminal UI's prompt
// (`!cmd`, Claude Code's bash mode) exactly as a Bash call with that
// command would run: judged by the session's permission engine (which may
// ask), then through the session's own Bash tool — its sandbox, timeout,
// output cap, secret redaction and process group. It is the user's own
// command, so no folder-trust gate applies (that gate is for commands a
// repository's files name). The output, for the UI to show and add to the
// conversation.
func (eq *Equipment) UserShell(ctx context.Context, command string) (string, error) {
	r := &inlineRunner{eq: eq, name: "user-shell", scope: skills.ScopeUser}
	return r.Shell(ctx, command)
}
