package otlpexport

import (
	"math"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// The encoders are checked by decoding their output with the official
// generated messages (go.opentelemetry.io/proto/otlp, linked by tests
// only) and comparing with what the official exporters' transforms build
// from the same SDK data (written out here with those messages).

// everyValue is one attribute of each value type, with edge values.
func everyValue() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.Bool("bool", true),
		attribute.Bool("false", false),
		attribute.Int64("int", -42),
		attribute.Int64("zero", 0),
		attribute.Int64("max", math.MaxInt64),
		attribute.Float64("float", 2.5),
		attribute.Float64("negzero", math.Copysign(0, -1)),
		attribute.String("string", "héllo"),
		attribute.String("empty", ""),
		attribute.String("long", string(make([]byte, 300))),
		attribute.BoolSlice("bools", []bool{true, false}),
		attribute.Int64Slice("ints", []int64{1, -2, 1 << 40}),
		attribute.Float64Slice("floats", []float64{0.5, -1e300}),
		attribute.StringSlice("strings", []string{"a", "", "c"}),
		attribute.ByteSlice("bytes", []byte{0, 1, 255}),
		attribute.Slice("mixed", attribute.StringValue("x"), attribute.Int64Value(7), attribute.SliceValue(attribute.BoolValue(true))),
		attribute.Map("map", attribute.String("k", "v"), attribute.Map("inner", attribute.Float64("f", 1))),
		{Key: "nothing"},
	}
}

// wantValue is the official transform of v.
func wantValue(v attribute.Value) *commonpb.AnyValue {
	arr := func(vs ...*commonpb.AnyValue) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vs}}}
	}
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BYTESLICE:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}}
	case attribute.BOOLSLICE:
		var out []*commonpb.AnyValue
		for _, e := range v.AsBoolSlice() {
			out = append(out, wantValue(attribute.BoolValue(e)))
		}
		return arr(out...)
	case attribute.INT64SLICE:
		var out []*commonpb.AnyValue
		for _, e := range v.AsInt64Slice() {
			out = append(out, wantValue(attribute.Int64Value(e)))
		}
		return arr(out...)
	case attribute.FLOAT64SLICE:
		var out []*commonpb.AnyValue
		for _, e := range v.AsFloat64Slice() {
			out = append(out, wantValue(attribute.Float64Value(e)))
		}
		return arr(out...)
	case attribute.STRINGSLICE:
		var out []*commonpb.AnyValue
		for _, e := range v.AsStringSlice() {
			out = append(out, wantValue(attribute.StringValue(e)))
		}
		return arr(out...)
	case attribute.SLICE:
		var out []*commonpb.AnyValue
		for _, e := range v.AsSlice() {
			out = append(out, wantValue(e))
		}
		return arr(out...)
	case attribute.MAP:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: wantKVs(v.AsMap())}}}
	}
	return &commonpb.AnyValue{}
}

func wantKVs(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	var out []*commonpb.KeyValue
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: wantValue(kv.Value)})
	}
	return out
}

func wantSet(s *attribute.Set) []*commonpb.KeyValue { return wantKVs(s.ToSlice()) }

func wantResource(r *resource.Resource) *resourcepb.Resource {
	return &resourcepb.Resource{Attributes: wantSet(r.Set())}
}

func wantScope(s instrumentation.Scope) *commonpb.InstrumentationScope {
	return &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version, Attributes: wantSet(&s.Attributes)}
}

// decodeInto decodes b into m with the official generated code, failing
// the test on malformed input.
func decodeInto(t *testing.T, b []byte, m proto.Message) {
	t.Helper()
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatalf("the official protobufs cannot decode the encoding: %v", err)
	}
}

// same fails the test when got and want differ, showing how.
func same(t *testing.T, what string, got, want proto.Message) {
	t.Helper()
	if !proto.Equal(got, want) {
		opt := prototext.MarshalOptions{Multiline: true}
		t.Errorf("%s differs from the official transform:\ngot:\n%s\nwant:\n%s", what, opt.Format(got), opt.Format(want))
	}
}

func testResource(t *testing.T, kvs ...attribute.KeyValue) *resource.Resource {
	t.Helper()
	return resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", kvs...)
}

// The length reserved for a nested message widens past one byte.
func TestAppendMessageWidensLength(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 300, 16383, 16384, 70000} {
		b := appendMessage([]byte{9}, 1, func(b []byte) []byte { return append(b, make([]byte, n)...) })
		num, typ, v, _, used, err := consumeField(b[1:])
		if err != nil || num != 1 || typ != bytesType || len(v) != n || used != len(b)-1 {
			t.Errorf("n=%d: field %d type %d len %d used %d of %d, err %v", n, num, typ, len(v), used, len(b)-1, err)
		}
	}
}
