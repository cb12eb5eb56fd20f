package otlpexport

import (
	"context"
	"errors"

	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The SDK's exporter interfaces over a client. The SDK calls Export from
// one goroutine at a time per exporter (its batch processors and periodic
// reader), and nothing is buffered here: ForceFlush has nothing to do.

// TraceExporter is an sdktrace.SpanExporter.
type TraceExporter struct{ c *client }

// NewTraceExporter makes the exporter of cfg; it connects at its first
// export.
func NewTraceExporter(cfg Config) (*TraceExporter, error) {
	c, err := newClient(cfg, "traces")
	if err != nil {
		return nil, err
	}
	return &TraceExporter{c: c}, nil
}

func (e *TraceExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.c.export(ctx, encodeTraces(spans))
}

func (e *TraceExporter) Shutdown(context.Context) error { e.c.shutdown(); return nil }

// MetricExporter is an sdkmetric.Exporter.
type MetricExporter struct{ c *client }

func NewMetricExporter(cfg Config) (*MetricExporter, error) {
	c, err := newClient(cfg, "metrics")
	if err != nil {
		return nil, err
	}
	return &MetricExporter{c: c}, nil
}

func (e *MetricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	if e.c.cfg.Temporality != nil {
		return e.c.cfg.Temporality(k)
	}
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (e *MetricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	if e.c.cfg.Aggregation != nil {
		return e.c.cfg.Aggregation(k)
	}
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export sends rm; a metric OTLP cannot carry is left out and named in
// the error, the rest is still sent.
func (e *MetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if rm == nil || len(rm.ScopeMetrics) == 0 {
		return nil
	}
	body, encErr := encodeMetrics(rm)
	return errors.Join(e.c.export(ctx, body), encErr)
}

func (e *MetricExporter) ForceFlush(ctx context.Context) error { return ctx.Err() }
func (e *MetricExporter) Shutdown(context.Context) error       { e.c.shutdown(); return nil }

// LogExporter is an sdklog.Exporter.
type LogExporter struct{ c *client }

func NewLogExporter(cfg Config) (*LogExporter, error) {
	c, err := newClient(cfg, "logs")
	if err != nil {
		return nil, err
	}
	return &LogExporter{c: c}, nil
}

func (e *LogExporter) Export(ctx context.Context, records []sdklog.Record) error {
	if len(records) == 0 {
		return nil
	}
	return e.c.export(ctx, encodeLogs(records))
}

func (e *LogExporter) ForceFlush(ctx context.Context) error { return ctx.Err() }
func (e *LogExporter) Shutdown(context.Context) error       { e.c.shutdown(); return nil }

var (
	_ sdktrace.SpanExporter = (*TraceExporter)(nil)
	_ sdkmetric.Exporter    = (*MetricExporter)(nil)
	_ sdklog.Exporter       = (*LogExporter)(nil)
)
