package otlpexport

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OTLP/gRPC without gRPC: a unary call is an HTTP/2 POST to
// /<service>/Export with content type application/grpc, the request one
// length-prefixed message (1 byte compressed flag, 4 bytes big-endian
// length), the answer the same framing, and its status in the
// grpc-status and grpc-message trailers (or headers, for a
// trailers-only answer). net/http speaks HTTP/2 over TLS (https) and,
// with Protocols, without (h2c, http).

func grpcMethod(signal string) string {
	switch signal {
	case "traces":
		return "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
	case "metrics":
		return "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"
	}
	return "/opentelemetry.proto.collector.logs.v1.LogsService/Export"
}

func newGRPCClient(cfg Config) *http.Client {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		TLSClientConfig:     cfg.TLS,
		Protocols:           new(http.Protocols),
	}
	if cfg.URL.Scheme == "http" {
		t.Protocols.SetUnencryptedHTTP2(true) // h2c with prior knowledge, as gRPC's plaintext
	} else {
		// Through HTTPS_PROXY by CONNECT, as grpc-go does; a plaintext
		// collector is reached directly.
		t.Proxy = http.ProxyFromEnvironment
		t.Protocols.SetHTTP2(true)
	}
	return &http.Client{Transport: t}
}

type grpcSender struct {
	client *http.Client
	cfg    Config
	method string
}

// gRPC status codes tandem tells apart.
const (
	codeOK                = 0
	codeCanceled          = 1
	codeUnknown           = 2
	codeDeadlineExceeded  = 4
	codePermissionDenied  = 7
	codeResourceExhausted = 8
	codeAborted           = 10
	codeOutOfRange        = 11
	codeUnimplemented     = 12
	codeInternal          = 13
	codeUnavailable       = 14
	codeDataLoss          = 15
	codeUnauthenticated   = 16
)

func (s *grpcSender) send(ctx context.Context, body []byte) ([]byte, error) {
	frame := make([]byte, 5, 5+len(body))
	if s.cfg.Gzip {
		frame[0] = 1
	}
	binary.BigEndian.PutUint32(frame[1:], uint32(len(body))) //nolint:gosec // a request is far below 4 GiB
	frame = append(frame, body...)
	u := *s.cfg.URL
	u.Path = s.method
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(frame))
	if err != nil {
		return nil, err
	}
	for k, v := range s.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	req.Header.Set("User-Agent", userAgent)
	if s.cfg.Gzip {
		req.Header.Set("Grpc-Encoding", "gzip")
	}
	if dl, ok := ctx.Deadline(); ok {
		req.Header.Set("Grpc-Timeout", grpcTimeout(time.Until(dl)))
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, transportError(ctx, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, readErr := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(httpToGRPC(resp.StatusCode), fmt.Sprintf("HTTP %s from a gRPC endpoint", resp.Status), nil)
	}
	if readErr != nil {
		return nil, &retryable{err: fmt.Errorf("read the response: %w", readErr)}
	}
	// Trailers-only answers carry the status in the headers.
	code, msg, details := resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message"), resp.Header.Get("Grpc-Status-Details-Bin")
	if code == "" {
		code, msg, details = resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message"), resp.Trailer.Get("Grpc-Status-Details-Bin")
	}
	if code == "" {
		return nil, statusError(codeInternal, "the answer has no grpc-status (is the endpoint a gRPC collector? OTLP/HTTP uses port 4318, gRPC 4317)", nil)
	}
	n, err := strconv.Atoi(code)
	if err != nil {
		return nil, statusError(codeUnknown, "grpc-status "+strconv.Quote(code), nil)
	}
	if n != codeOK {
		m, _ := url.PathUnescape(msg)
		return nil, statusError(n, m, decodeDetails(details))
	}
	return unframe(data, resp.Header.Get("Grpc-Encoding"))
}

// unframe is the message of a length-prefixed answer (none: nil).
func unframe(data []byte, encoding string) ([]byte, error) {
	if len(data) == 0 {
		return nil, nil
	}
	if len(data) < 5 || int(binary.BigEndian.Uint32(data[1:5])) != len(data)-5 {
		return nil, errors.New("malformed gRPC answer frame")
	}
	msg := data[5:]
	if data[0] == 0 {
		return msg, nil
	}
	if encoding != "gzip" {
		return nil, fmt.Errorf("gRPC answer compressed with %q", encoding)
	}
	zr, err := gzip.NewReader(bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(zr, maxResponse))
}

// statusError is a non-OK gRPC status; retryable for the codes the OTLP
// specification names, RESOURCE_EXHAUSTED only when the collector said
// when to retry.
func statusError(code int, msg string, details *rpcStatus) error {
	err := fmt.Errorf("gRPC status %s: %s", codeName(code), msg)
	var after time.Duration
	if details != nil {
		after = details.retryDelay
	}
	switch code {
	case codeCanceled, codeDeadlineExceeded, codeAborted, codeOutOfRange, codeUnavailable, codeDataLoss:
		return &retryable{err: err, after: after}
	case codeResourceExhausted:
		if after > 0 {
			return &retryable{err: err, after: after}
		}
	case codeUnauthenticated, codePermissionDenied:
		return fmt.Errorf("%w (check the headers: OTEL_EXPORTER_OTLP_HEADERS or the config's telemetry.headers)", err)
	case codeUnimplemented:
		return fmt.Errorf("%w (is the endpoint an OTLP/gRPC collector? OTLP/HTTP uses port 4318, gRPC 4317)", err)
	}
	return err
}

func decodeDetails(b64 string) *rpcStatus {
	if b64 == "" {
		return nil
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(b64, "="))
	if err != nil {
		return nil
	}
	st, err := decodeStatus(raw)
	if err != nil {
		return nil
	}
	return &st
}

// httpToGRPC maps an HTTP status from a gRPC endpoint (a proxy's, most
// likely) as gRPC's own clients do.
func httpToGRPC(status int) int {
	switch status {
	case http.StatusBadRequest:
		return codeInternal
	case http.StatusUnauthorized:
		return codeUnauthenticated
	case http.StatusForbidden:
		return codePermissionDenied
	case http.StatusNotFound:
		return codeUnimplemented
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return codeUnavailable
	}
	return codeUnknown
}

// grpcTimeout is the grpc-timeout header: at most 8 digits and a unit.
func grpcTimeout(d time.Duration) string {
	ms := max(d.Milliseconds(), 1)
	if ms < 1e8 {
		return strconv.FormatInt(ms, 10) + "m"
	}
	return strconv.FormatInt(min(int64(d/time.Second), 99999999), 10) + "S"
}

func codeName(c int) string {
	names := [...]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
		"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
		"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}
	if c >= 0 && c < len(names) {
		return names[c]
	}
	return strconv.Itoa(c)
}
