package main

import (
	"context"
	"os"

	"github.com/tandem-agent/tandem/internal/cliproto"
)

// runClaudeProtocol runs tandem as a stand-in for the Claude Code CLI (see
// docs/claude-code-cli.md).
func runClaudeProtocol(args []string) int {
	ctx, stop := interruptContext(context.Background())
	defer stop()
	return cliproto.Main(ctx, cliproto.Options{Args: args, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Version: version()})
}
