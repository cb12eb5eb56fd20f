// Package telemetry exports tandem's metrics, events (OpenTelemetry logs)
// and traces over OTLP, named and attributed as Claude Code's are so that
// dashboards built for Claude Code read tandem's too (docs/telemetry.md).
//
// It is off unless the user configures it (the standard OTEL_* variables
// or the user config's "telemetry" section; Decide). Off, Start returns a
// nil *Telemetry: no SDK is initialised, no exporter starts, and every
// method of a nil *Telemetry or *Session is a no-op that wraps nothing, so
// the hot paths are those of a build without telemetry.
//
// Metrics, events and spans are derived in one place per session, a
// Session: an event.Sink on the session's emitter (turns, tool calls,
// permission waits, sub-agents' forwarded events), fed also by the turn's
// recorder (each model call's usage and cost as the assistant message is
// stored) and by the runtime wrapper (a turn's start and end, its prompt).
// No package-level state: the providers live in the Telemetry value the
// application owns and closes.
package telemetry
