package otlpexport

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/trace"
	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
)

// captured keeps what the SDK hands an exporter.
type captured struct{ records []sdklog.Record }

func (c *captured) Export(_ context.Context, rs []sdklog.Record) error {
	for _, r := range rs {
		c.records = append(c.records, r.Clone())
	}
	return nil
}
func (c *captured) ForceFlush(context.Context) error { return nil }
func (c *captured) Shutdown(context.Context) error   { return nil }

// Log records made by the SDK (bodies of every value type, attributes,
// severities, trace context, event names, two scopes) decode with the
// official protobufs to what the official exporter would send.
func TestEncodeLogsRoundTrip(t *testing.T) {
	cap := &captured{}
	res := testResource(t, attribute.String("service.name", "tandem"))
	lp := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewSimpleProcessor(cap)))
	a := lp.Logger("tandem", log.WithInstrumentationVersion("1.0"), log.WithSchemaURL("https://s"), log.WithInstrumentationAttributes(attribute.String("k", "v")))
	b := lp.Logger("other")
	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sid := trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	now := time.Unix(1700000000, 5)
	bodies := append(everyValue(), attribute.KeyValue{Key: "none"})
	for i, kv := range bodies {
		var r log.Record
		r.SetTimestamp(now.Add(time.Duration(i)))
		r.SetObservedTimestamp(now.Add(time.Hour))
		r.SetSeverity(log.Severity(i%24 + 1))
		r.SetSeverityText("LEVEL")
		r.SetEventName("claude_code.event")
		r.SetBody(kv.Value)
		r.AddAttributes(attribute.String("event.name", string(kv.Key)), attribute.Int("i", i))
		if i == 0 {
			r.AddAttributes(everyValue()...)
		}
		lg := a
		if i%2 == 1 {
			lg = b
		}
		c := ctx
		if i == 3 {
			c = context.Background()
		}
		lg.Emit(c, r)
	}
	var got collogs.ExportLogsServiceRequest
	decodeInto(t, encodeLogs(cap.records), &got)

	want := &collogs.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{Resource: wantResource(res), SchemaUrl: res.SchemaURL()}}}
	scopes := map[string]*logspb.ScopeLogs{}
	for i := range cap.records {
		r := &cap.records[i]
		sc := r.InstrumentationScope()
		sl := scopes[sc.Name]
		if sl == nil {
			sl = &logspb.ScopeLogs{Scope: wantScope(sc), SchemaUrl: sc.SchemaURL}
			scopes[sc.Name] = sl
			want.ResourceLogs[0].ScopeLogs = append(want.ResourceLogs[0].ScopeLogs, sl)
		}
		lr := &logspb.LogRecord{
			TimeUnixNano: uint64(r.Timestamp().UnixNano()), ObservedTimeUnixNano: uint64(r.ObservedTimestamp().UnixNano()),
			SeverityNumber: logspb.SeverityNumber(r.Severity()), SeverityText: r.SeverityText(), EventName: r.EventName(),
			Flags: uint32(r.TraceFlags()), DroppedAttributesCount: uint32(r.DroppedAttributes()),
		}
		if r.Body().Type() != attribute.EMPTY {
			lr.Body = wantValue(r.Body())
		}
		r.WalkAttributes(func(kv attribute.KeyValue) bool {
			lr.Attributes = append(lr.Attributes, wantKVs([]attribute.KeyValue{kv})...)
			return true
		})
		if r.TraceID().IsValid() {
			lr.TraceId, lr.SpanId = tid[:], sid[:]
		}
		sl.LogRecords = append(sl.LogRecords, lr)
	}
	same(t, "ExportLogsServiceRequest", &got, want)
	if n := len(got.ResourceLogs[0].ScopeLogs[0].LogRecords) + len(got.ResourceLogs[0].ScopeLogs[1].LogRecords); n != len(bodies) {
		t.Errorf("%d records, want %d", n, len(bodies))
	}
}
