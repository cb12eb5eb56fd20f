package otlpexport

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Spans with events, links, each status, every attribute value type, two
// resources and two scopes decode with the official protobufs to what the
// official exporter would send.
func TestEncodeTracesRoundTrip(t *testing.T) {
	start := time.Unix(1700000000, 123456789)
	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	ts, _ := trace.ParseTraceState("vendor=value,other=x")
	sc := func(sid byte, remote bool) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{sid, 0, 0, 0, 0, 0, 0, 1}, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: remote})
	}
	resA := testResource(t, attribute.String("service.name", "tandem"), attribute.Int64("pid", 7))
	resB := testResource(t, attribute.String("service.name", "other"))
	scopeA := instrumentation.Scope{Name: "tandem", Version: "1.2.3", SchemaURL: "https://s/1", Attributes: attribute.NewSet(attribute.String("scope.attr", "x"))}
	scopeB := instrumentation.Scope{Name: "otelhttp"}
	stubs := tracetest.SpanStubs{
		{
			Name: "root", SpanContext: sc(1, false), SpanKind: trace.SpanKindServer,
			StartTime: start, EndTime: start.Add(time.Second), Attributes: everyValue(),
			Events: []sdktrace.Event{
				{Name: "ev1", Time: start.Add(time.Millisecond), Attributes: []attribute.KeyValue{attribute.Int("n", 1)}, DroppedAttributeCount: 2},
				{Name: "ev2", Time: start.Add(2 * time.Millisecond)},
			},
			Links: []sdktrace.Link{
				{SpanContext: sc(9, true), Attributes: []attribute.KeyValue{attribute.String("why", "follows")}, DroppedAttributeCount: 1},
				{SpanContext: sc(8, false)},
			},
			Status:               sdktrace.Status{Code: codes.Error, Description: "it broke"},
			DroppedAttributes:    3,
			DroppedEvents:        4,
			DroppedLinks:         5,
			Resource:             resA,
			InstrumentationScope: scopeA,
			ChildSpanCount:       1,
		},
		{Name: "child", SpanContext: sc(2, false), Parent: sc(1, true), SpanKind: trace.SpanKindClient, StartTime: start, EndTime: start.Add(time.Millisecond),
			Status: sdktrace.Status{Code: codes.Ok}, Resource: resA, InstrumentationScope: scopeA},
		{Name: "other scope", SpanContext: sc(3, false), Parent: sc(1, false), SpanKind: trace.SpanKindInternal, StartTime: start, EndTime: start,
			Resource: resA, InstrumentationScope: scopeB},
		{Name: "other resource", SpanContext: sc(4, false), SpanKind: trace.SpanKindProducer, StartTime: start, EndTime: start,
			Resource: resB, InstrumentationScope: scopeA},
		{Name: "consumer, before 1970", SpanContext: sc(5, false), SpanKind: trace.SpanKindConsumer, StartTime: time.Unix(-5, 0), EndTime: start,
			Resource: resB, InstrumentationScope: scopeA},
	}
	spans := stubs.Snapshots()
	var got coltrace.ExportTraceServiceRequest
	decodeInto(t, encodeTraces(append(spans, nil)), &got)

	wantSpan := func(ro sdktrace.ReadOnlySpan) *tracepb.Span {
		s := ro.SpanContext()
		tid, sid := s.TraceID(), s.SpanID()
		out := &tracepb.Span{
			TraceId: tid[:], SpanId: sid[:], TraceState: s.TraceState().String(), Name: ro.Name(),
			Kind:              tracepb.Span_SpanKind(ro.SpanKind()),
			StartTimeUnixNano: uint64(max(0, ro.StartTime().UnixNano())), EndTimeUnixNano: uint64(ro.EndTime().UnixNano()),
			Attributes:             wantKVs(ro.Attributes()),
			DroppedAttributesCount: uint32(ro.DroppedAttributes()), DroppedEventsCount: uint32(ro.DroppedEvents()), DroppedLinksCount: uint32(ro.DroppedLinks()),
			Status: &tracepb.Status{Message: ro.Status().Description, Code: map[codes.Code]tracepb.Status_StatusCode{
				codes.Unset: tracepb.Status_STATUS_CODE_UNSET, codes.Ok: tracepb.Status_STATUS_CODE_OK, codes.Error: tracepb.Status_STATUS_CODE_ERROR}[ro.Status().Code]},
			Flags: 0x01 | 0x100,
		}
		if p := ro.Parent(); p.SpanID().IsValid() {
			psid := p.SpanID()
			out.ParentSpanId = psid[:]
			if p.IsRemote() {
				out.Flags |= 0x200
			}
		}
		for _, e := range ro.Events() {
			out.Events = append(out.Events, &tracepb.Span_Event{Name: e.Name, TimeUnixNano: uint64(e.Time.UnixNano()), Attributes: wantKVs(e.Attributes), DroppedAttributesCount: uint32(e.DroppedAttributeCount)})
		}
		for _, l := range ro.Links() {
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			flags := uint32(0x01 | 0x100)
			if l.SpanContext.IsRemote() {
				flags |= 0x200
			}
			out.Links = append(out.Links, &tracepb.Span_Link{TraceId: ltid[:], SpanId: lsid[:], TraceState: l.SpanContext.TraceState().String(),
				Attributes: wantKVs(l.Attributes), DroppedAttributesCount: uint32(l.DroppedAttributeCount), Flags: flags})
		}
		return out
	}
	want := &coltrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{
		{Resource: wantResource(resA), SchemaUrl: resA.SchemaURL(), ScopeSpans: []*tracepb.ScopeSpans{
			{Scope: wantScope(scopeA), SchemaUrl: scopeA.SchemaURL, Spans: []*tracepb.Span{wantSpan(spans[0]), wantSpan(spans[1])}},
			{Scope: wantScope(scopeB), Spans: []*tracepb.Span{wantSpan(spans[2])}},
		}},
		{Resource: wantResource(resB), SchemaUrl: resB.SchemaURL(), ScopeSpans: []*tracepb.ScopeSpans{
			{Scope: wantScope(scopeA), SchemaUrl: scopeA.SchemaURL, Spans: []*tracepb.Span{wantSpan(spans[3]), wantSpan(spans[4])}},
		}},
	}}
	same(t, "ExportTraceServiceRequest", &got, want)
	if n := len(got.ResourceSpans[0].ScopeSpans[0].Spans[0].Attributes); n != len(everyValue()) {
		t.Errorf("%d attributes decoded, want %d", n, len(everyValue()))
	}
}
