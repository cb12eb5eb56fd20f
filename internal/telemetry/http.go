//go:build !notelemetry

package telemetry

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
)

// Middleware traces the HTTP server's requests (a span per request, its
// route pattern as the name, W3C trace context taken from the caller) when
// traces are exported; otherwise it returns h itself.
func (t *Telemetry) Middleware(h http.Handler) http.Handler {
	if t == nil || t.tp == nil {
		return h
	}
	opts := []otelhttp.Option{
		otelhttp.WithTracerProvider(t.tp),
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			if r.Pattern != "" {
				return r.Pattern
			}
			return r.Method
		}),
	}
	if t.mp != nil {
		opts = append(opts, otelhttp.WithMeterProvider(t.mp))
	}
	return otelhttp.NewHandler(h, "tandem.http", opts...)
}
