package otlpexport

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// sender sends one encoded request and returns the collector's encoded
// response message (an Export*ServiceResponse; nil or empty when it sent
// none). An error worth retrying is a *retryable.
type sender interface {
	send(ctx context.Context, body []byte) ([]byte, error)
}

// retryable is a failure the OTLP specification says to retry: HTTP 429,
// 502, 503, 504; gRPC UNAVAILABLE and its kin; a connection that failed.
// after is the wait the collector asked for (Retry-After, RetryInfo).
type retryable struct {
	err   error
	after time.Duration
}

func (e *retryable) Error() string { return e.err.Error() }
func (e *retryable) Unwrap() error { return e.err }

var errShutdown = errors.New("otlp: exporter already shut down")

// client is what the three signals' exporters share: the sender, the
// retries within the timeout, and shutdown.
type client struct {
	cfg    Config
	signal string
	sender sender
	http   *http.Client

	// stop is cancelled at Shutdown, ending exports in flight.
	stop      context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once
}

// newClient builds the signal's client; nothing connects until the
// first export.
func newClient(cfg Config, signal string) (*client, error) {
	if cfg.URL == nil {
		return nil, fmt.Errorf("otlp: no endpoint for %s", signal)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.backoff <= 0 {
		cfg.backoff, cfg.maxBackoff = time.Second, 5*time.Second
	}
	c := &client{cfg: cfg, signal: signal}
	c.stop, c.cancel = context.WithCancel(context.Background())
	switch cfg.Protocol {
	case HTTP:
		c.http = newHTTPClient(cfg)
		c.sender = &httpSender{client: c.http, cfg: cfg}
	case GRPC:
		c.http = newGRPCClient(cfg)
		c.sender = &grpcSender{client: c.http, cfg: cfg, method: grpcMethod(signal)}
	default:
		return nil, fmt.Errorf("otlp: protocol %q: use %s or %s", cfg.Protocol, HTTP, GRPC)
	}
	c.http.CheckRedirect = refuseRedirect
	return c, nil
}

// redirected is a collector's answer sending the export elsewhere. It is
// not followed: net/http would carry the exporter's headers (an API key
// in OTEL_EXPORTER_OTLP_HEADERS: it strips only Authorization and
// cookies) and the telemetry to whatever host the answer names. Not
// retried either: the next answer would be the same.
type redirected struct{ to string }

func (e *redirected) Error() string {
	return "the collector redirected the export to " + e.to + ": redirects are not followed (they would take the headers along); set the endpoint to the address it should reach"
}

func refuseRedirect(req *http.Request, _ []*http.Request) error {
	return &redirected{to: req.URL.Redacted()}
}

// export sends body, retrying what may succeed later with a growing,
// jittered wait (or the collector's), all within the export timeout. A
// partial success goes to OnError.
func (c *client) export(ctx context.Context, body []byte) error {
	if c.stop.Err() != nil {
		return errShutdown
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	defer context.AfterFunc(c.stop, cancel)()
	if c.cfg.Gzip {
		var err error
		if body, err = gzipped(body); err != nil {
			return err
		}
	}
	wait := c.cfg.backoff
	for attempt := 1; ; attempt++ {
		resp, err := c.sender.send(ctx, body)
		if err == nil {
			c.partial(resp)
			return nil
		}
		var re *retryable
		if !errors.As(err, &re) || ctx.Err() != nil {
			return c.fail(err, attempt)
		}
		// ±20 % jitter, so many tandems do not retry in step.
		d := max(time.Duration(float64(wait)*(0.8+0.4*rand.Float64())), re.after)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return c.fail(fmt.Errorf("%w (no retry: the next one, in %s, would pass the export timeout; raise OTEL_EXPORTER_OTLP_TIMEOUT to wait longer)", err, d.Round(time.Millisecond)), attempt)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return c.fail(err, attempt)
		case <-t.C:
		}
		wait = min(2*wait, c.cfg.maxBackoff)
	}
}

func (c *client) fail(err error, attempts int) error {
	if attempts > 1 {
		return fmt.Errorf("otlp: export %s to %s (%d attempts): %w", c.signal, c.cfg.URL.Redacted(), attempts, err)
	}
	return fmt.Errorf("otlp: export %s to %s: %w", c.signal, c.cfg.URL.Redacted(), err)
}

// partial reports a response's partial success: the collector took the
// request but rejected some of it (not retried, per the specification).
func (c *client) partial(resp []byte) {
	if len(resp) == 0 || c.cfg.OnError == nil {
		return
	}
	n, msg, err := partialSuccess(resp)
	switch {
	case err != nil:
		c.cfg.OnError(fmt.Errorf("otlp: %s: the collector's response: %w", c.signal, err))
	case n != 0 || msg != "":
		c.cfg.OnError(fmt.Errorf("otlp: %s partial success: the collector at %s rejected %d (%s)", c.signal, c.cfg.URL.Redacted(), n, msg))
	}
}

// shutdown ends exports in flight and refuses new ones.
func (c *client) shutdown() {
	c.closeOnce.Do(func() {
		c.cancel()
		c.http.CloseIdleConnections()
	})
}

func gzipped(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
