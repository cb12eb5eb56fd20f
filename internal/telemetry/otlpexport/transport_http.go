package otlpexport

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// OTLP/HTTP: the request is a protobuf POST to /v1/<signal>; the response
// an Export*ServiceResponse, or on failure a google.rpc.Status.

const (
	contentTypeProtobuf = "application/x-protobuf"
	userAgent           = "tandem OTLP exporter (Go)"
	// maxResponse bounds what is read of a response.
	maxResponse = 1 << 20
)

func newHTTPClient(cfg Config) *http.Client {
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       cfg.TLS,
	}
	return &http.Client{Transport: t}
}

type httpSender struct {
	client *http.Client
	cfg    Config
}

func (s *httpSender) send(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range s.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", contentTypeProtobuf)
	req.Header.Set("User-Agent", userAgent)
	if s.cfg.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, transportError(ctx, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, &retryable{err: fmt.Errorf("read the response: %w", err)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), contentTypeProtobuf) {
			return nil, nil // e.g. JSON: nothing tandem reads
		}
		return data, nil
	}
	err = fmt.Errorf("%s: %s", resp.Status, responseText(resp.Header.Get("Content-Type"), data))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return nil, &retryable{err: err, after: retryAfter(resp.Header.Get("Retry-After"))}
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, fmt.Errorf("%w (check the headers: OTEL_EXPORTER_OTLP_HEADERS or the config's telemetry.headers)", err)
	}
	return nil, err
}

// responseText is an error response's message: a google.rpc.Status's
// message for protobuf, else the start of the body.
func responseText(contentType string, data []byte) string {
	if strings.HasPrefix(contentType, contentTypeProtobuf) {
		if st, err := decodeStatus(data); err == nil && st.message != "" {
			return st.message
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// retryAfter reads Retry-After: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, int64(time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// transportError is a failed round trip: retryable (a connection reset, a
// timeout) unless the export's own context ended it or retrying cannot
// help.
func transportError(ctx context.Context, err error) error {
	var redir *redirected
	if ctx.Err() != nil || errors.As(err, &redir) {
		return err
	}
	// A TLS mismatch or an untrusted certificate will not mend itself.
	var rh tls.RecordHeaderError
	var cv *tls.CertificateVerificationError
	if errors.As(err, &rh) || errors.As(err, &cv) {
		return fmt.Errorf("%w (check the endpoint's scheme, http or https, and OTEL_EXPORTER_OTLP_CERTIFICATE)", err)
	}
	// Nobody listening, or no such host: not retried (as the official
	// OTLP/HTTP exporter), so a collector that is down does not hold an
	// export, or tandem's exit, for the whole timeout; the next batch
	// tries again.
	var dns *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dns) {
		return fmt.Errorf("%w (is the collector running and reachable? check OTEL_EXPORTER_OTLP_ENDPOINT)", err)
	}
	return &retryable{err: err}
}
