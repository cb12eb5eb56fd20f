package otlpexport

import (
	"errors"
	"fmt"
	"time"
)

// The few messages tandem reads back: an Export*ServiceResponse's partial
// success, and the google.rpc.Status (with its RetryInfo) a collector
// sends with an error.

// partialSuccess reads an Export{Trace,Metrics,Logs}ServiceResponse:
// field 1 is its partial_success, whose field 1 is the rejected count
// (spans, data points or log records) and field 2 the message. Nil when
// everything was accepted.
func partialSuccess(resp []byte) (rejected int64, msg string, err error) {
	ps, err := field(resp, 1, bytesType)
	if err != nil || ps == nil {
		return 0, "", err
	}
	err = eachField(ps, func(num wireNumber, typ wireType, v []byte, n uint64) error {
		switch {
		case num == 1 && typ == varintType:
			rejected = int64(n) //nolint:gosec // int64 on the wire
		case num == 2 && typ == bytesType:
			msg = string(v)
		}
		return nil
	})
	return rejected, msg, err
}

// rpcStatus is a google.rpc.Status: code, message, and the delay of a
// google.rpc.RetryInfo among its details (0: none).
type rpcStatus struct {
	code       int64
	message    string
	retryDelay time.Duration
}

const retryInfoType = "type.googleapis.com/google.rpc.RetryInfo"

func decodeStatus(b []byte) (rpcStatus, error) {
	var st rpcStatus
	err := eachField(b, func(num wireNumber, typ wireType, v []byte, n uint64) error {
		switch {
		case num == 1 && typ == varintType:
			st.code = int64(int32(n)) //nolint:gosec // int32 on the wire
		case num == 2 && typ == bytesType:
			st.message = string(v)
		case num == 3 && typ == bytesType: // google.protobuf.Any
			typeURL, _ := field(v, 1, bytesType)
			if string(typeURL) != retryInfoType {
				return nil
			}
			info, err := field(v, 2, bytesType)
			if err != nil {
				return err
			}
			d, err := field(info, 1, bytesType) // RetryInfo.retry_delay
			if err != nil {
				return err
			}
			return eachField(d, func(num wireNumber, typ wireType, _ []byte, n uint64) error {
				if typ != varintType {
					return nil
				}
				switch num {
				case 1:
					st.retryDelay += time.Duration(int64(n)) * time.Second //nolint:gosec // int64 seconds
				case 2:
					st.retryDelay += time.Duration(int32(n)) //nolint:gosec // int32 nanos
				}
				return nil
			})
		}
		return nil
	})
	return st, err
}

// field is the last value of field num of type typ in message b (nil when
// absent); for a varint, use eachField.
func field(b []byte, want wireNumber, wantType wireType) ([]byte, error) {
	var out []byte
	err := eachField(b, func(num wireNumber, typ wireType, v []byte, _ uint64) error {
		if num == want && typ == wantType {
			out = v
		}
		return nil
	})
	return out, err
}

var errMalformed = errors.New("malformed protobuf")

// eachField calls fn with each field of message b: its bytes for a
// length-delimited field, its value for a varint or fixed one.
func eachField(b []byte, fn func(num wireNumber, typ wireType, v []byte, n uint64) error) error {
	for len(b) > 0 {
		num, typ, v, x, n, err := consumeField(b)
		if err != nil {
			return fmt.Errorf("%w: %w", errMalformed, err)
		}
		b = b[n:]
		if err := fn(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}
