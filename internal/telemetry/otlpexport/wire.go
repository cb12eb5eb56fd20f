package otlpexport

import (
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
)

// The common messages (opentelemetry/proto/common/v1, resource/v1) and the
// helpers every signal's encoder appends with. A proto3 field at its zero
// value is left out, as the official marshaller does; a oneof member is
// always written (its presence is the value).

// appendMessage appends field num holding the message body writes. The
// length is reserved as one byte and widened afterwards when the body is
// 128 bytes or more: one move of the body, instead of encoding it twice.
func appendMessage(b []byte, num wireNumber, body func([]byte) []byte) []byte {
	b = appendTag(b, num, bytesType)
	at := len(b)
	b = append(b, 0)
	b = body(b)
	n := len(b) - at - 1
	if n < 0x80 {
		b[at] = byte(n)
		return b
	}
	extra := sizeVarint(uint64(n)) - 1
	for range extra {
		b = append(b, 0)
	}
	copy(b[at+1+extra:], b[at+1:at+1+n])
	appendVarintRaw(b[at:at], uint64(n))
	return b
}

func appendString(b []byte, num wireNumber, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, num, bytesType)
	return appendStringRaw(b, s)
}

func appendBytes(b []byte, num wireNumber, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = appendTag(b, num, bytesType)
	return appendBytesRaw(b, v)
}

func appendVarint(b []byte, num wireNumber, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, varintType)
	return appendVarintRaw(b, v)
}

func appendFixed64(b []byte, num wireNumber, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, fixed64Type)
	return appendFixed64Raw(b, v)
}

func appendFixed32(b []byte, num wireNumber, v uint32) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, fixed32Type)
	return appendFixed32Raw(b, v)
}

func appendDouble(b []byte, num wireNumber, v float64) []byte {
	if v == 0 && !math.Signbit(v) {
		return b
	}
	return appendDoubleAlways(b, num, v)
}

// appendDoubleAlways writes a double with presence (oneof, optional).
func appendDoubleAlways(b []byte, num wireNumber, v float64) []byte {
	b = appendTag(b, num, fixed64Type)
	return appendFixed64Raw(b, math.Float64bits(v))
}

// unixNano is a time as OTLP's fixed64 nanoseconds (0 before 1970, as the
// official exporters clamp).
func unixNano(t time.Time) uint64 {
	return uint64(max(0, t.UnixNano())) //nolint:gosec // clamped above
}

// count32 is a dropped count as OTLP's uint32, clamped.
func count32(n int) uint64 {
	return uint64(min(max(n, 0), math.MaxUint32)) //nolint:gosec // clamped
}

// AnyValue fields.
const (
	anyString = 1
	anyBool   = 2
	anyInt    = 3
	anyDouble = 4
	anyArray  = 5
	anyKVList = 6
	anyBytes  = 7
)

// appendAnyValue appends the body of an AnyValue. An empty value is an
// AnyValue with nothing set; a type tandem's encoder does not know is
// the string "INVALID", as the official exporters write.
func appendAnyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.EMPTY:
		return b
	case attribute.BOOL:
		b = appendTag(b, anyBool, varintType)
		return appendVarintRaw(b, encodeBool(v.AsBool()))
	case attribute.INT64:
		b = appendTag(b, anyInt, varintType)
		return appendVarintRaw(b, uint64(v.AsInt64())) //nolint:gosec // two's complement, as proto's int64
	case attribute.FLOAT64:
		return appendDoubleAlways(b, anyDouble, v.AsFloat64())
	case attribute.STRING:
		b = appendTag(b, anyString, bytesType)
		return appendStringRaw(b, v.AsString())
	case attribute.BYTESLICE:
		b = appendTag(b, anyBytes, bytesType)
		return appendBytesRaw(b, v.AsByteSlice())
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		return appendArray(b, v.AsSlice(), func(v attribute.Value) attribute.Value { return v })
	case attribute.MAP:
		return appendMessage(b, anyKVList, func(b []byte) []byte {
			return appendKeyValues(b, 1, v.AsMap())
		})
	}
	b = appendTag(b, anyString, bytesType)
	return appendStringRaw(b, "INVALID")
}

// appendArray appends an ArrayValue of the elements of s.
func appendArray[T any](b []byte, s []T, value func(T) attribute.Value) []byte {
	return appendMessage(b, anyArray, func(b []byte) []byte {
		for _, e := range s {
			b = appendMessage(b, 1, func(b []byte) []byte { return appendAnyValue(b, value(e)) })
		}
		return b
	})
}

// appendKeyValue appends field num holding a KeyValue.
func appendKeyValue(b []byte, num wireNumber, kv attribute.KeyValue) []byte {
	return appendMessage(b, num, func(b []byte) []byte {
		b = appendString(b, 1, string(kv.Key))
		return appendMessage(b, 2, func(b []byte) []byte { return appendAnyValue(b, kv.Value) })
	})
}

func appendKeyValues(b []byte, num wireNumber, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = appendKeyValue(b, num, kv)
	}
	return b
}

// appendSet appends the attributes of a set, in its (sorted) order.
func appendSet(b []byte, num wireNumber, s *attribute.Set) []byte {
	for it := s.Iter(); it.Next(); {
		b = appendKeyValue(b, num, it.Attribute())
	}
	return b
}

// appendResource appends field num holding a Resource (nil: left out).
func appendResource(b []byte, num wireNumber, r *resource.Resource) []byte {
	if r == nil {
		return b
	}
	return appendMessage(b, num, func(b []byte) []byte {
		set := r.Set()
		return appendSet(b, 1, set)
	})
}

// appendScope appends field num holding an InstrumentationScope (the zero
// scope: left out, as the official exporters do).
func appendScope(b []byte, num wireNumber, s instrumentation.Scope) []byte {
	if s == (instrumentation.Scope{}) {
		return b
	}
	return appendMessage(b, num, func(b []byte) []byte {
		b = appendString(b, 1, s.Name)
		b = appendString(b, 2, s.Version)
		return appendSet(b, 3, &s.Attributes)
	})
}

// group is the resource-then-scope grouping every signal's request has,
// in the order items first appear (the official exporters use maps, so
// any order is valid; a stable one is easier to read and test).
type group[T any] struct {
	res    *resource.Resource
	scopes []scopeItems[T]
}

type scopeItems[T any] struct {
	scope instrumentation.Scope
	items []T
}

// groupBy groups items by resource (its attributes) and scope.
func groupBy[T any](items []T, res func(T) *resource.Resource, scope func(T) instrumentation.Scope) []group[T] {
	var out []group[T]
	byRes := map[attribute.Distinct]int{}
	type key struct {
		r attribute.Distinct
		s instrumentation.Scope
	}
	byScope := map[key][2]int{}
	for _, it := range items {
		r := res(it)
		rk := r.Equivalent()
		ri, ok := byRes[rk]
		if !ok {
			ri = len(out)
			byRes[rk] = ri
			out = append(out, group[T]{res: r})
		}
		k := key{rk, scope(it)}
		at, ok := byScope[k]
		if !ok {
			at = [2]int{ri, len(out[ri].scopes)}
			byScope[k] = at
			out[ri].scopes = append(out[ri].scopes, scopeItems[T]{scope: k.s})
		}
		s := &out[at[0]].scopes[at[1]]
		s.items = append(s.items, it)
	}
	return out
}
