package appbackend

import (
	"context"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/tui"
)

// The terminal UI's features of internal/tui/extras.go (images, `!cmd`,
// memory files, the statusLine command), through the session handle;
// Features says which the open session has.

// RunImages implements tui.ImageRunner: a turn as Run runs it, with the
// prompt's images.
func (b *Backend) RunImages(ctx context.Context, prompt string, images []message.Block) (event.Event, error) {
	return b.run(ctx, prompt, images)
}

// UserShell implements tui.ShellRunner.
func (b *Backend) UserShell(ctx context.Context, command string) (string, error) {
	return b.current().UserShell(ctx, command)
}

// MemoryFiles implements tui.Memory.
func (b *Backend) MemoryFiles() []tui.MemoryFile {
	var out []tui.MemoryFile
	for _, f := range b.a.MemoryFiles(b.Info().Cwd) {
		out = append(out, tui.MemoryFile{Scope: f.Scope, Path: f.Path})
	}
	return out
}

// AppendMemory implements tui.Memory.
func (b *Backend) AppendMemory(path, line string) error { return app.AppendMemory(path, line) }

// HasStatusLine implements tui.StatusLiner.
func (b *Backend) HasStatusLine() bool {
	l := b.current()
	return l != nil && l.HasStatusLine()
}

// StatusLine implements tui.StatusLiner.
func (b *Backend) StatusLine(ctx context.Context, contextTokens, contextWindow int64) (string, error) {
	l := b.current()
	if l == nil {
		return "", nil
	}
	return l.StatusLine(ctx, contextTokens, contextWindow)
}
