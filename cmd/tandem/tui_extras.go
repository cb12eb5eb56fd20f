package main

import (
	"context"
	"errors"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tui"
)

// The terminal UI's optional backends (internal/tui/extras.go): images,
// `!cmd`, memory files and the statusLine command, over the session's
// equipment.

var (
	_ tui.ImageRunner = (*tuiBackend)(nil)
	_ tui.ShellRunner = (*tuiBackend)(nil)
	_ tui.Memory      = (*tuiBackend)(nil)
	_ tui.StatusLiner = (*tuiBackend)(nil)
)

// RunImages implements tui.ImageRunner: a turn as Run runs it, with the
// prompt's images.
func (b *tuiBackend) RunImages(ctx context.Context, prompt string, images []message.Block) (event.Event, error) {
	l := b.current()
	b.mu.Lock()
	wait := !b.waited
	b.waited = true
	b.mu.Unlock()
	if wait {
		app.WaitMCP(ctx, l, b.f.mcpWait)
	}
	return l.Run(ctx, prompt, session.TurnOptions{MaxTurns: b.f.maxTurns, MaxBudgetUSD: b.f.maxBudget, AppendSystemPrompt: b.f.appendSystem,
		SystemPrompt: b.f.systemPrompt, DisallowedTools: b.f.disallowed, Effort: b.f.effort, Images: images})
}

// UserShell implements tui.ShellRunner.
func (b *tuiBackend) UserShell(ctx context.Context, command string) (string, error) {
	eq, ok := app.SandboxOf(b.current())
	if !ok {
		return "", errors.New("this session's runtime runs no commands of its own")
	}
	return eq.UserShell(ctx, command)
}

// MemoryFiles implements tui.Memory.
func (b *tuiBackend) MemoryFiles() []tui.MemoryFile {
	var out []tui.MemoryFile
	for _, f := range b.a.MemoryFiles(b.Info().Cwd) {
		out = append(out, tui.MemoryFile{Scope: f.Scope, Path: f.Path})
	}
	return out
}

// AppendMemory implements tui.Memory.
func (b *tuiBackend) AppendMemory(path, line string) error { return app.AppendMemory(path, line) }

// HasStatusLine implements tui.StatusLiner.
func (b *tuiBackend) HasStatusLine() bool {
	eq, ok := app.SandboxOf(b.current())
	return ok && eq.HasStatusLine()
}

// StatusLine implements tui.StatusLiner.
func (b *tuiBackend) StatusLine(ctx context.Context, contextTokens, contextWindow int64) (string, error) {
	eq, ok := app.SandboxOf(b.current())
	if !ok {
		return "", nil
	}
	return eq.StatusLine(ctx, contextTokens, contextWindow)
}
