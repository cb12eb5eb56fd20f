package app

import (
	"context"
	"os"
	"time"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/telemetry"
	"github.com/tandem-agent/tandem/internal/turn"
)

// telemetryFlushTimeout bounds the flush at Close: a collector that is
// down must not hold up tandem's exit.
const telemetryFlushTimeout = 5 * time.Second

// startTelemetry starts OpenTelemetry export when the environment or the
// user file asks for it (docs/telemetry.md); nil when off.
func startTelemetry(opts Options, user *config.Config, userFile string, install *installID) (*telemetry.Telemetry, error) {
	plan, err := telemetry.Decide(opts.Getenv, user.Telemetry, userFile)
	if err != nil || !plan.Any() {
		return nil, err
	}
	info := telemetry.Info{Version: opts.Version, TerminalType: firstNonEmpty(opts.Getenv("TERM_PROGRAM"), opts.Getenv("TERM"))}
	if id, err := install.get(); err == nil {
		info.UserID = id
	}
	return telemetry.Start(context.Background(), plan, info)
}

// Telemetry is the App's telemetry (nil: off), for a front end's own
// instrumentation (the HTTP server's requests).
func (a *App) Telemetry() *telemetry.Telemetry { return a.tel }

// closeTelemetry flushes and stops the exporters.
func (a *App) closeTelemetry() error {
	ctx, cancel := context.WithTimeout(context.Background(), telemetryFlushTimeout)
	defer cancel()
	return a.tel.Shutdown(ctx)
}

// sessionTelemetry starts a live session's telemetry, fed by its events;
// nil when telemetry is off (then nothing is attached to the session).
func (w *wiring) sessionTelemetry(cfg *config.Config, l *session.Live) *telemetry.Session {
	if w.app.tel == nil {
		return nil
	}
	s := w.app.tel.Session(l.Snapshot().ID, w.secretPolicy(cfg).Redactor(os.Environ()))
	l.Events().AddSink(s)
	return s
}

// telemetryChildren reports the sub-agents a Runner starts: each one's
// span under the tool call that started it, its model calls through its
// recorder.
type telemetryChildren struct {
	subagent.Children
	s *telemetry.Session
}

// childrenFor is c, reporting to s when telemetry is on.
func childrenFor(s *telemetry.Session, c subagent.Children) subagent.Children {
	if s == nil {
		return c
	}
	return telemetryChildren{Children: c, s: s}
}

func (c telemetryChildren) NewChild(ctx context.Context, parentID, parentToolUseID, cwd, model, title string, lastSeq func() int64) (string, turn.Recorder, error) {
	id, rec, err := c.Children.NewChild(ctx, parentID, parentToolUseID, cwd, model, title, lastSeq)
	if err != nil {
		return id, rec, err
	}
	c.s.Child(id, parentToolUseID, title)
	return id, c.s.Recorder(id, rec), nil
}
