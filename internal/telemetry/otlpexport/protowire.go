package otlpexport

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/),
// the few primitives the encoders need. Not google.golang.org/protobuf's
// encoding/protowire: it imports protobuf-go's internal/errors and with it
// internal/detrand, whose package initialiser opens and reads the running
// executable at every start of tandem — the cost at rest this package
// exists to avoid. The encoders' output is checked against the official
// generated messages in the tests.

type wireNumber int32

type wireType int8

const (
	varintType  wireType = 0
	fixed64Type wireType = 1
	bytesType   wireType = 2
	fixed32Type wireType = 5
)

func appendTag(b []byte, num wireNumber, typ wireType) []byte {
	return appendVarintRaw(b, uint64(num)<<3|uint64(typ&7)) //nolint:gosec // field numbers are positive
}

func appendVarintRaw(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func sizeVarint(v uint64) int {
	// 1 byte per 7 bits, at least one.
	return int(9*uint32(bits.Len64(v))+64) / 64
}

func appendFixed32Raw(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendFixed64Raw(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendBytesRaw(b []byte, v []byte) []byte {
	return append(appendVarintRaw(b, uint64(len(v))), v...)
}

func appendStringRaw(b []byte, v string) []byte {
	return append(appendVarintRaw(b, uint64(len(v))), v...)
}

func encodeZigZag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) } //nolint:gosec // the zigzag mapping

func encodeBool(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

var errTruncated = errors.New("truncated")

// consumeVarint reads a varint; n < 0 when b is malformed.
func consumeVarint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, -1
}

// consumeField reads one field of a message: its number, type, value (a
// varint's or fixed one's in x, a length-delimited one's bytes in v) and
// length.
func consumeField(b []byte) (num wireNumber, typ wireType, v []byte, x uint64, n int, err error) {
	tag, n := consumeVarint(b)
	if n < 0 || tag>>3 == 0 || tag>>3 > 1<<29-1 {
		return 0, 0, nil, 0, 0, errTruncated
	}
	num, typ = wireNumber(tag>>3), wireType(tag&7) //nolint:gosec // checked above
	rest := b[n:]
	switch typ {
	case varintType:
		var m int
		if x, m = consumeVarint(rest); m < 0 {
			return 0, 0, nil, 0, 0, errTruncated
		}
		return num, typ, nil, x, n + m, nil
	case fixed32Type:
		if len(rest) < 4 {
			return 0, 0, nil, 0, 0, errTruncated
		}
		return num, typ, nil, uint64(binary.LittleEndian.Uint32(rest)), n + 4, nil
	case fixed64Type:
		if len(rest) < 8 {
			return 0, 0, nil, 0, 0, errTruncated
		}
		return num, typ, nil, binary.LittleEndian.Uint64(rest), n + 8, nil
	case bytesType:
		l, m := consumeVarint(rest)
		if m < 0 || l > uint64(len(rest)-m) {
			return 0, 0, nil, 0, 0, errTruncated
		}
		return num, typ, rest[m : m+int(l)], 0, n + m + int(l), nil //nolint:gosec // bounded by len(rest)
	}
	// Groups are not in any message tandem reads.
	return 0, 0, nil, 0, 0, errors.New("unsupported wire type")
}
