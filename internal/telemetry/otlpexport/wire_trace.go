package otlpexport

import (
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Span flags (opentelemetry/proto/trace/v1 SpanFlags): the W3C trace
// flags in the low byte, and whether the parent (or linked) context was
// remote.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// encodeTraces is an ExportTraceServiceRequest of spans.
func encodeTraces(spans []sdktrace.ReadOnlySpan) []byte {
	var live []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s != nil {
			live = append(live, s)
		}
	}
	groups := groupBy(live,
		func(s sdktrace.ReadOnlySpan) *resource.Resource { return s.Resource() },
		func(s sdktrace.ReadOnlySpan) instrumentation.Scope { return s.InstrumentationScope() })
	var b []byte
	for _, g := range groups {
		b = appendMessage(b, 1, func(b []byte) []byte { // ResourceSpans
			b = appendResource(b, 1, g.res)
			for _, sc := range g.scopes {
				b = appendMessage(b, 2, func(b []byte) []byte { // ScopeSpans
					b = appendScope(b, 1, sc.scope)
					for _, s := range sc.items {
						b = appendMessage(b, 2, func(b []byte) []byte { return appendSpan(b, s) })
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

// appendSpan appends the body of a Span.
func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, 1, tid[:])
	b = appendBytes(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		b = appendBytes(b, 4, psid[:])
	}
	b = appendString(b, 5, s.Name())
	b = appendVarint(b, 6, spanKind(s.SpanKind()))
	b = appendFixed64(b, 7, unixNano(s.StartTime()))
	b = appendFixed64(b, 8, unixNano(s.EndTime()))
	b = appendKeyValues(b, 9, s.Attributes())
	b = appendVarint(b, 10, count32(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = appendMessage(b, 11, func(b []byte) []byte {
			b = appendFixed64(b, 1, unixNano(e.Time))
			b = appendString(b, 2, e.Name)
			b = appendKeyValues(b, 3, e.Attributes)
			return appendVarint(b, 4, count32(e.DroppedAttributeCount))
		})
	}
	b = appendVarint(b, 12, count32(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = appendMessage(b, 13, func(b []byte) []byte {
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = appendBytes(b, 1, ltid[:])
			b = appendBytes(b, 2, lsid[:])
			b = appendString(b, 3, l.SpanContext.TraceState().String())
			b = appendKeyValues(b, 4, l.Attributes)
			b = appendVarint(b, 5, count32(l.DroppedAttributeCount))
			return appendFixed32(b, 6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = appendVarint(b, 14, count32(s.DroppedLinks()))
	st := s.Status()
	b = appendMessage(b, 15, func(b []byte) []byte { // Status, written even when unset, as the official exporters do
		b = appendString(b, 2, st.Description)
		return appendVarint(b, 3, statusCode(st.Code))
	})
	return appendFixed32(b, 16, spanFlags(sc.TraceFlags(), parent))
}

// spanFlags are a span's (or link's) flags: its trace flags, and whether
// ctx (the parent, or the linked context) is remote.
func spanFlags(tf trace.TraceFlags, ctx trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if ctx.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// spanKind is OTLP's Span.SpanKind (the same numbers as the API's, mapped
// by name so a new API value cannot slip through as something else).
func spanKind(k trace.SpanKind) uint64 {
	switch k {
	case trace.SpanKindInternal:
		return 1
	case trace.SpanKindServer:
		return 2
	case trace.SpanKindClient:
		return 3
	case trace.SpanKindProducer:
		return 4
	case trace.SpanKindConsumer:
		return 5
	}
	return 0
}

// statusCode is OTLP's Status.StatusCode: OK is 1 and ERROR 2 there, the
// other way round from the API's codes.
func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}
