//go:build !notelemetry

package telemetry

import (
	"fmt"

	"go.opentelemetry.io/otel/metric"
)

// instruments are Claude Code's counters, with its descriptions and units.
type instruments struct {
	sessions, lines, prs, commits, tokens, editDecisions metric.Int64Counter
	cost, activeTime                                     metric.Float64Counter
}

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var errs []error
	i64 := func(name, desc, unit string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		errs = append(errs, err)
		return c
	}
	f64 := func(name, desc, unit string) metric.Float64Counter {
		c, err := m.Float64Counter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		errs = append(errs, err)
		return c
	}
	in.sessions = i64(MetricSessionCount, "Count of CLI sessions started", "")
	in.lines = i64(MetricLinesOfCode, "Count of lines of code modified, with the 'type' attribute indicating whether lines were added or removed", "")
	in.prs = i64(MetricPullRequests, "Number of pull requests created", "")
	in.commits = i64(MetricCommits, "Number of git commits created", "")
	in.tokens = i64(MetricTokens, "Number of tokens used", "tokens")
	in.editDecisions = i64(MetricCodeEditDecision, "Count of code editing tool permission decisions (accept/reject) for Edit, Write, MultiEdit and NotebookEdit tools", "")
	in.cost = f64(MetricCost, "Cost of the session", "USD")
	in.activeTime = f64(MetricActiveTime, "Total active time in seconds", "s")
	for _, err := range errs {
		if err != nil {
			return in, fmt.Errorf("telemetry: instruments: %w", err)
		}
	}
	return in, nil
}
