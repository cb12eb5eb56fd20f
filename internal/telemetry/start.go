//go:build !notelemetry

package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tandem-agent/tandem/internal/telemetry/otlpexport"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	lognoop "go.opentelemetry.io/otel/log/noop"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Info is what every signal says about this tandem.
type Info struct {
	Version string
	// UserID is this install's id (Claude Code's user.id is its device
	// id); "" leaves it out.
	UserID string
	// TerminalType is terminal.type (TERM_PROGRAM, else TERM); "" leaves
	// it out.
	TerminalType string
}

// Telemetry holds the OpenTelemetry providers of one application. A nil
// *Telemetry is telemetry off: its methods do nothing and wrap nothing.
type Telemetry struct {
	plan   Plan
	tp     *sdktrace.TracerProvider // nil: traces off
	mp     *sdkmetric.MeterProvider // nil: metrics off
	lp     *sdklog.LoggerProvider   // nil: logs off
	tracer trace.Tracer
	logger log.Logger
	inst   instruments
	common []attribute.KeyValue
}

// Start builds the exporters (tandem's own, internal/telemetry/otlpexport)
// and providers the plan asks for; for a plan that exports nothing it
// returns nil and touches no SDK. Exporters connect lazily: an
// unreachable collector costs nothing at start.
func Start(ctx context.Context, plan Plan, info Info) (*Telemetry, error) {
	if !plan.Any() {
		return nil, nil
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", ServiceName), attribute.String("service.version", info.Version)}
	for k, v := range plan.ResourceAttributes {
		attrs = append(attrs, attribute.String(k, v))
	}
	// WithFromEnv last: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w (check OTEL_RESOURCE_ATTRIBUTES: key=value pairs separated by commas)", err)
	}
	t := &Telemetry{plan: plan}
	t.common = append(t.common, attribute.String(attrAppVersion, info.Version))
	if info.UserID != "" {
		t.common = append(t.common, attribute.String(attrUserID, info.UserID))
	}
	if info.TerminalType != "" {
		t.common = append(t.common, attribute.String(attrTerminalType, info.TerminalType))
	}
	fail := func(err error) (*Telemetry, error) {
		_ = t.Shutdown(context.Background())
		return nil, err
	}
	if plan.On[Traces] {
		exp, err := newExporter(plan, Traces, otlpexport.NewTraceExporter)
		if err != nil {
			return fail(fmt.Errorf("telemetry: trace exporter: %w", err))
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	}
	if plan.On[Metrics] {
		exp, err := newExporter(plan, Metrics, otlpexport.NewMetricExporter)
		if err != nil {
			return fail(fmt.Errorf("telemetry: metric exporter: %w", err))
		}
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(plan.MetricInterval))))
	}
	if plan.On[Logs] {
		exp, err := newExporter(plan, Logs, otlpexport.NewLogExporter)
		if err != nil {
			return fail(fmt.Errorf("telemetry: log exporter: %w", err))
		}
		t.lp = sdklog.NewLoggerProvider(sdklog.WithResource(res),
			sdklog.WithProcessor(sdklog.NewBatchProcessor(exp, sdklog.WithExportInterval(plan.LogsInterval))))
	}
	t.tracer = tracenoop.NewTracerProvider().Tracer(scope)
	if t.tp != nil {
		t.tracer = t.tp.Tracer(scope)
	}
	t.logger = lognoop.NewLoggerProvider().Logger(scope)
	if t.lp != nil {
		t.logger = t.lp.Logger(scope)
	}
	meter := metricnoop.NewMeterProvider().Meter(scope)
	if t.mp != nil {
		meter = t.mp.Meter(scope)
	}
	if t.inst, err = newInstruments(meter); err != nil {
		return fail(err)
	}
	return t, nil
}

// Plan is what Start was given (the zero Plan for nil).
func (t *Telemetry) Plan() Plan {
	if t == nil {
		return Plan{}
	}
	return t.plan
}

// Shutdown flushes what is buffered and stops the exporters; ctx bounds
// the wait (a collector that is down must not hold up tandem's exit).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	if t.lp != nil {
		errs = append(errs, t.lp.Shutdown(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("telemetry: flush at exit: %w (is the collector at OTEL_EXPORTER_OTLP_ENDPOINT reachable?)", err)
	}
	return nil
}

// exporterConfig is the signal's exporter: the plan's protocol, the
// OTEL_EXPORTER_OTLP_* variables, the config file's endpoint and headers
// where those set none. A partial success goes to the SDK's global error
// handler (logged), as export failures do.
func exporterConfig(plan Plan, sig Signal) (otlpexport.Config, error) {
	return otlpexport.Resolve(otlpexport.Source{
		Getenv: plan.Getenv, ReadFile: os.ReadFile,
		Endpoint: plan.Endpoint, Headers: plan.Headers,
		OnError: otel.Handle,
	}, string(sig), plan.Protocol[sig])
}

// newExporter builds one signal's exporter; it connects at its
// first export, so an unreachable collector costs nothing at start.
func newExporter[E any](plan Plan, sig Signal, build func(otlpexport.Config) (E, error)) (E, error) {
	cfg, err := exporterConfig(plan, sig)
	if err != nil {
		var zero E
		return zero, err
	}
	return build(cfg)
}
