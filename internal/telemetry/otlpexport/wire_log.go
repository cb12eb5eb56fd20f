package otlpexport

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
)

// encodeLogs is an ExportLogsServiceRequest of records.
func encodeLogs(records []sdklog.Record) []byte {
	ptrs := make([]*sdklog.Record, len(records))
	for i := range records {
		ptrs[i] = &records[i]
	}
	groups := groupBy(ptrs,
		func(r *sdklog.Record) *resource.Resource { return r.Resource() },
		func(r *sdklog.Record) instrumentation.Scope { return r.InstrumentationScope() })
	var b []byte
	for _, g := range groups {
		b = appendMessage(b, 1, func(b []byte) []byte { // ResourceLogs
			if g.res != nil && g.res.Len() > 0 {
				b = appendResource(b, 1, g.res)
			}
			for _, sc := range g.scopes {
				b = appendMessage(b, 2, func(b []byte) []byte { // ScopeLogs
					b = appendScope(b, 1, sc.scope)
					for _, r := range sc.items {
						b = appendMessage(b, 2, func(b []byte) []byte { return appendLogRecord(b, r) })
					}
					return appendString(b, 3, sc.scope.SchemaURL)
				})
			}
			if g.res != nil {
				b = appendString(b, 3, g.res.SchemaURL())
			}
			return b
		})
	}
	return b
}

// appendLogRecord appends the body of a LogRecord. Severity numbers are
// the same in the API and in OTLP (1 TRACE … 24 FATAL4).
func appendLogRecord(b []byte, r *sdklog.Record) []byte {
	b = appendFixed64(b, 1, unixNano(r.Timestamp()))
	b = appendVarint(b, 2, uint64(max(r.Severity(), 0))) //nolint:gosec // clamped
	b = appendString(b, 3, r.SeverityText())
	if body := r.Body(); body.Type() != attribute.EMPTY {
		b = appendMessage(b, 5, func(b []byte) []byte { return appendAnyValue(b, body) })
	}
	r.WalkAttributes(func(kv attribute.KeyValue) bool {
		b = appendKeyValue(b, 6, kv)
		return true
	})
	b = appendVarint(b, 7, count32(r.DroppedAttributes()))
	b = appendFixed32(b, 8, uint32(r.TraceFlags()))
	if tid := r.TraceID(); tid.IsValid() {
		b = appendBytes(b, 9, tid[:])
	}
	if sid := r.SpanID(); sid.IsValid() {
		b = appendBytes(b, 10, sid[:])
	}
	b = appendFixed64(b, 11, unixNano(r.ObservedTimestamp()))
	return appendString(b, 12, r.EventName())
}
