//go:build notelemetry

package telemetry

// A build with -tags notelemetry links no OpenTelemetry code (no SDK,
// no exporters, no otelhttp): for packagers who want none of its cost in
// the binary, and the baseline docs/benchmarks.md measures
// the default build against. Decide still reads the configuration, so a
// configuration that asks for telemetry fails with a clear error instead
// of exporting nothing in silence.

import (
	"context"
	"errors"
	"net/http"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Info is what every signal says about this tandem (unused here).
type Info struct {
	Version      string
	UserID       string
	TerminalType string
}

// Telemetry is always nil in this build.
type Telemetry struct{}

// Session is always nil in this build.
type Session struct{}

// Start refuses a plan that exports anything.
func Start(_ context.Context, plan Plan, _ Info) (*Telemetry, error) {
	if !plan.Any() {
		return nil, nil
	}
	return nil, errors.New("telemetry: this tandem was built without OpenTelemetry (-tags notelemetry): use a default build, or unset OTEL_* and the config's telemetry section")
}

func (t *Telemetry) Plan() Plan                                       { return Plan{} }
func (t *Telemetry) Shutdown(context.Context) error                   { return nil }
func (t *Telemetry) Middleware(h http.Handler) http.Handler           { return h }
func (t *Telemetry) Session(string, *secrets.Redactor) *Session       { return nil }
func (s *Session) Runtime(rt turn.Runtime) turn.Runtime               { return rt }
func (s *Session) Recorder(_ string, rec turn.Recorder) turn.Recorder { return rec }
func (s *Session) Child(childID, toolUseID, agent string)             {}
func (s *Session) Emit(event.Event)                                   {}
