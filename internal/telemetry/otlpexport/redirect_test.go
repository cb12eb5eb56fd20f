package otlpexport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A hostile (or hijacked) collector answering with a redirect to another
// host must not get the exporter's headers (an API key in
// OTEL_EXPORTER_OTLP_HEADERS) or the telemetry sent there: net/http
// strips only Authorization, Cookie and WWW-Authenticate on a redirect to
// another host, not a vendor's key header. The redirect is refused, with
// an error naming where the collector pointed, over HTTP and gRPC alike.
func TestRedirectNotFollowed(t *testing.T) {
	for _, proto := range []string{HTTP, GRPC} {
		t.Run(strings.ReplaceAll(proto, "/", "_"), func(t *testing.T) {
			var mu sync.Mutex
			var leaked []string
			other := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				leaked = append(leaked, r.Header.Get("X-Api-Key"))
				mu.Unlock()
				w.WriteHeader(http.StatusOK)
			}))
			other.Config.Protocols = new(http.Protocols)
			other.Config.Protocols.SetHTTP1(true)
			other.Config.Protocols.SetUnencryptedHTTP2(true)
			other.Start()
			defer other.Close()
			// Another host: 127.0.0.1 and localhost are two hosts to net/http.
			target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/steal"
			hops := 0
			collector := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				hops++
				mu.Unlock()
				http.Redirect(w, r, target, http.StatusTemporaryRedirect)
			}))
			// h2c too, as a gRPC collector over plain http speaks.
			collector.Config.Protocols = new(http.Protocols)
			collector.Config.Protocols.SetHTTP1(true)
			collector.Config.Protocols.SetUnencryptedHTTP2(true)
			collector.Start()
			defer collector.Close()
			exp, err := NewTraceExporter(Config{Protocol: proto, URL: mustURL(t, collector.URL+"/v1/traces"),
				Headers: map[string]string{"X-Api-Key": "sekrit-key"}, Timeout: 5 * time.Second, backoff: time.Millisecond, maxBackoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = exp.Shutdown(context.Background()) }()
			err = exp.ExportSpans(context.Background(), oneSpan("x").Snapshots())
			mu.Lock()
			defer mu.Unlock()
			if len(leaked) != 0 {
				t.Errorf("the redirect was followed: the other host got %d requests with X-Api-Key %q", len(leaked), leaked)
			}
			if err == nil || !strings.Contains(err.Error(), "redirect") || strings.Contains(err.Error(), "sekrit-key") {
				t.Errorf("export answered by a redirect: %v; want an error naming the redirect, no key", err)
			}
			if hops != 1 {
				t.Errorf("the collector was asked %d times; a redirect is not retried", hops)
			}
		})
	}
}
