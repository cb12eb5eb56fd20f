package otlpexport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

// The exporter variables resolve as the official exporters read them: the
// signal's own variable first, then the general one, then the config
// file; OTLP/HTTP adds /v1/<signal> to a base endpoint only.
func TestResolve(t *testing.T) {
	cases := []struct {
		name, signal, protocol string
		env                    map[string]string
		file                   string
		fileHeaders            map[string]string
		url                    string
		headers                map[string]string
		timeout                time.Duration
		gzip                   bool
		err                    string
	}{
		{name: "defaults, HTTP", signal: "traces", protocol: HTTP, url: "http://localhost:4318/v1/traces", timeout: 10 * time.Second},
		{name: "defaults, gRPC", signal: "logs", protocol: GRPC, url: "http://localhost:4317"},
		{name: "general endpoint is a base", signal: "metrics", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318/otlp/"}, url: "https://c:4318/otlp/v1/metrics"},
		{name: "signal endpoint as given", signal: "metrics", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://b:1/m"}, url: "http://b:1/m"},
		{name: "signal endpoint without path", signal: "logs", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://b:1"}, url: "http://b:1/"},
		{name: "signal endpoint beats the file", signal: "traces", protocol: HTTP, file: "http://file:4318", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://env/t"}, url: "http://env/t"},
		{name: "file endpoint is a base", signal: "traces", protocol: HTTP, file: "http://file:4318/", url: "http://file:4318/v1/traces"},
		{name: "gRPC keeps scheme and host", signal: "traces", protocol: GRPC, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4317/x"}, url: "https://c:4317"},
		{name: "insecure true makes it plain", signal: "traces", protocol: GRPC, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4317", "OTEL_EXPORTER_OTLP_INSECURE": "true"}, url: "http://c:4317"},
		{name: "signal insecure false makes it TLS", signal: "traces", protocol: GRPC, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_INSECURE": "true", "OTEL_EXPORTER_OTLP_TRACES_INSECURE": "false"}, url: "https://c:4317"},
		{name: "headers: signal's replace general", signal: "logs", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_LOGS_HEADERS": "b=x%2Cy, c = 3 "}, headers: map[string]string{"b": "x,y", "c": "3"}},
		{name: "headers: env beats file", signal: "logs", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1"}, fileHeaders: map[string]string{"f": "2"}, headers: map[string]string{"a": "1"}},
		{name: "headers: file", signal: "logs", protocol: HTTP, fileHeaders: map[string]string{"f": "2"}, headers: map[string]string{"f": "2"}},
		{name: "timeout and gzip", signal: "traces", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "500", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip"}, timeout: 500 * time.Millisecond, gzip: true},
		{name: "signal timeout wins", signal: "traces", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "500", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "700"}, timeout: 700 * time.Millisecond},
		{name: "bad timeout", signal: "traces", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, err: "OTEL_EXPORTER_OTLP_TIMEOUT=\"10s\": give milliseconds"},
		{name: "bad compression", signal: "traces", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, err: "use gzip or none"},
		{name: "bad header", signal: "traces", protocol: HTTP, env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, err: "OTEL_EXPORTER_OTLP_HEADERS: entry 1 is not key=value"},
		{name: "endpoint without scheme", signal: "traces", protocol: GRPC, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"}, err: "give a URL such as http://collector:4317"},
		{name: "bad insecure", signal: "traces", protocol: GRPC, env: map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "yes"}, err: "use true or false"},
		{name: "bad temporality", signal: "metrics", protocol: GRPC, env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "sometimes"}, err: "use cumulative, delta or lowmemory"},
		{name: "missing certificate file", signal: "metrics", protocol: GRPC, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"}, err: "OTEL_EXPORTER_OTLP_CERTIFICATE: open /nonexistent/ca.pem"},
		{name: "client certificate without key", signal: "metrics", protocol: GRPC, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": "/c.pem"}, err: "needs both"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Resolve(Source{Getenv: env(c.env), ReadFile: os.ReadFile, Endpoint: c.file, Headers: c.fileHeaders}, c.signal, c.protocol)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.url != "" && cfg.URL.String() != c.url {
				t.Errorf("URL = %s, want %s", cfg.URL, c.url)
			}
			if c.headers != nil && !equalMaps(cfg.Headers, c.headers) {
				t.Errorf("headers = %v, want %v", cfg.Headers, c.headers)
			}
			if c.timeout != 0 && cfg.Timeout != c.timeout {
				t.Errorf("timeout = %s, want %s", cfg.Timeout, c.timeout)
			}
			if cfg.Gzip != c.gzip {
				t.Errorf("gzip = %v", cfg.Gzip)
			}
		})
	}
}

// A certificate with a plain endpoint is refused; the metric preferences
// reach the exporter.
func TestResolveTLSAndMetricPreferences(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(Source{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": ca}), ReadFile: os.ReadFile}, "traces", HTTP)
	if err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a file without a certificate: %v", err)
	}
	cfg, err := Resolve(Source{Getenv: env(map[string]string{
		"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE":        "delta",
		"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "base2_exponential_bucket_histogram",
	})}, "metrics", HTTP)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := NewMetricExporter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if exp.Temporality(sdkmetric.InstrumentKindCounter) != metricdata.DeltaTemporality {
		t.Error("delta preference not applied")
	}
	if _, ok := exp.Aggregation(sdkmetric.InstrumentKindHistogram).(sdkmetric.AggregationBase2ExponentialHistogram); !ok {
		t.Error("exponential histogram preference not applied")
	}
	def, _ := NewMetricExporter(Config{Protocol: HTTP, URL: cfg.URL})
	if def.Temporality(sdkmetric.InstrumentKindCounter) != metricdata.CumulativeTemporality {
		t.Error("default temporality is not cumulative")
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A mistyped variable's error names the variable and the fix, never the
// secret it holds: a header written with a colon ("Authorization: Bearer
// ...") is no key=value pair, and an endpoint with credentials but no
// scheme is no URL.
func TestResolveErrorsHoldNoSecret(t *testing.T) {
	for name, e := range map[string]map[string]string{
		"header with a colon":      {"OTEL_EXPORTER_OTLP_HEADERS": "Authorization: Bearer sekrit-123"},
		"second header, no equals": {"OTEL_EXPORTER_OTLP_HEADERS": "a=b,sekrit-123"},
		"endpoint without scheme":  {"OTEL_EXPORTER_OTLP_ENDPOINT": "user:sekrit-123@collector:4318"},
		"endpoint that is no URL":  {"OTEL_EXPORTER_OTLP_ENDPOINT": "https://user:sekrit-123@coll ector:4318"},
	} {
		_, err := Resolve(Source{Getenv: env(e)}, "traces", HTTP)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(err.Error(), "sekrit") {
			t.Errorf("%s: the error holds the secret: %v", name, err)
		}
	}
}
