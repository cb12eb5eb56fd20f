package feishu

import (
	"context"
	"fmt"
	"log"
)

// SetLog implements bridge.Logging: the SDK's lines (its errors only, at
// the level New sets) go to the bridge's log, redacted, instead of the
// SDK's default logger on standard output.
func (p *Platform) SetLog(logf func(format string, args ...any)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.logf = logf
}

// sdkLog is the larkcore.Logger the SDK's clients are given.
type sdkLog struct{ p *Platform }

func (l sdkLog) Debug(_ context.Context, args ...any) { l.line("debug", args) }
func (l sdkLog) Info(_ context.Context, args ...any)  { l.line("info", args) }
func (l sdkLog) Warn(_ context.Context, args ...any)  { l.line("warn", args) }
func (l sdkLog) Error(_ context.Context, args ...any) { l.line("error", args) }

func (l sdkLog) line(level string, args []any) {
	l.p.mu.Lock()
	logf := l.p.logf
	l.p.mu.Unlock()
	if logf == nil {
		// Not under a bridge (a test of the platform alone): standard
		// error, as Go's log does.
		logf = log.Printf
	}
	logf("feishu sdk %s: %s", level, fmt.Sprint(args...))
}
