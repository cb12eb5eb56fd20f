// Package otlptest is an OTLP receiver for tests: it listens on loopback
// for OTLP/HTTP (protobuf) and OTLP/gRPC (gzip or not), decodes what
// arrives with the official OTLP protobufs and grpc-go and keeps it for the test to inspect. Imported
// from _test.go files only.
package otlptest

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // OTLP/gRPC exporters may compress
	"google.golang.org/protobuf/proto"
)

// Receiver keeps every export it was sent.
type Receiver struct {
	// HTTPURL is the OTLP/HTTP base URL (http://127.0.0.1:PORT), GRPCURL
	// the OTLP/gRPC one.
	HTTPURL, GRPCURL string

	mu       sync.Mutex
	requests int
	spans    []*tracepb.ResourceSpans
	metrics  []*metricspb.ResourceMetrics
	logs     []*logspb.ResourceLogs
}

// Start starts a receiver on 127.0.0.1 (both protocols), stopped when the
// test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.httpHandler(func(b []byte) error {
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			return err
		}
		r.addSpans(req.ResourceSpans)
		return nil
	}, &coltrace.ExportTraceServiceResponse{}))
	mux.HandleFunc("POST /v1/metrics", r.httpHandler(func(b []byte) error {
		var req colmetrics.ExportMetricsServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			return err
		}
		r.addMetrics(req.ResourceMetrics)
		return nil
	}, &colmetrics.ExportMetricsServiceResponse{}))
	mux.HandleFunc("POST /v1/logs", r.httpHandler(func(b []byte) error {
		var req collogs.ExportLogsServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			return err
		}
		r.addLogs(req.ResourceLogs)
		return nil
	}, &collogs.ExportLogsServiceResponse{}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(hl) }()
	r.HTTPURL = "http://" + hl.Addr().String()

	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(gs, traceService{r: r})
	colmetrics.RegisterMetricsServiceServer(gs, metricsService{r: r})
	collogs.RegisterLogsServiceServer(gs, logsService{r: r})
	go func() { _ = gs.Serve(gl) }()
	r.GRPCURL = "http://" + gl.Addr().String()
	t.Cleanup(func() {
		gs.Stop()
		_ = hs.Close()
	})
	return r
}

func (r *Receiver) httpHandler(decode func([]byte) error, resp proto.Message) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err == nil {
			err = decode(b)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, _ := proto.Marshal(resp)
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}
}

func (r *Receiver) addSpans(s []*tracepb.ResourceSpans) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	r.spans = append(r.spans, s...)
}

func (r *Receiver) addMetrics(m []*metricspb.ResourceMetrics) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	r.metrics = append(r.metrics, m...)
}

func (r *Receiver) addLogs(l []*logspb.ResourceLogs) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	r.logs = append(r.logs, l...)
}

type traceService struct {
	coltrace.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	s.r.addSpans(req.ResourceSpans)
	return &coltrace.ExportTraceServiceResponse{}, nil
}

type metricsService struct {
	colmetrics.UnimplementedMetricsServiceServer
	r *Receiver
}

func (s metricsService) Export(_ context.Context, req *colmetrics.ExportMetricsServiceRequest) (*colmetrics.ExportMetricsServiceResponse, error) {
	s.r.addMetrics(req.ResourceMetrics)
	return &colmetrics.ExportMetricsServiceResponse{}, nil
}

type logsService struct {
	collogs.UnimplementedLogsServiceServer
	r *Receiver
}

func (s logsService) Export(_ context.Context, req *collogs.ExportLogsServiceRequest) (*collogs.ExportLogsServiceResponse, error) {
	s.r.addLogs(req.ResourceLogs)
	return &collogs.ExportLogsServiceResponse{}, nil
}

// Requests is the number of exports received, of any signal.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Spans are every span received, with their resources' attributes.
func (r *Receiver) Spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*tracepb.Span
	for _, rs := range r.spans {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

// ResourceAttrs are the attributes of the first resource that sent spans,
// metrics or logs.
func (r *Receiver) ResourceAttrs() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case len(r.spans) > 0:
		return Attrs(r.spans[0].Resource.GetAttributes())
	case len(r.metrics) > 0:
		return Attrs(r.metrics[0].Resource.GetAttributes())
	case len(r.logs) > 0:
		return Attrs(r.logs[0].Resource.GetAttributes())
	}
	return nil
}

// Metrics are every metric received.
func (r *Receiver) Metrics() []*metricspb.Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*metricspb.Metric
	for _, rm := range r.metrics {
		for _, sm := range rm.ScopeMetrics {
			out = append(out, sm.Metrics...)
		}
	}
	return out
}

// Logs are every log record received.
func (r *Receiver) Logs() []*logspb.LogRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*logspb.LogRecord
	for _, rl := range r.logs {
		for _, sl := range rl.ScopeLogs {
			out = append(out, sl.LogRecords...)
		}
	}
	return out
}

// Point is one data point of a sum: its value and attributes.
type Point struct {
	Value float64
	Attrs map[string]string
}

// Points are the data points of the metrics named name.
func (r *Receiver) Points(name string) []Point {
	var out []Point
	for _, m := range r.Metrics() {
		if m.Name != name {
			continue
		}
		for _, dp := range m.GetSum().GetDataPoints() {
			v := dp.GetAsDouble()
			if _, ok := dp.Value.(*metricspb.NumberDataPoint_AsInt); ok {
				v = float64(dp.GetAsInt())
			}
			out = append(out, Point{Value: v, Attrs: Attrs(dp.Attributes)})
		}
	}
	return out
}

// Attrs flattens attributes to strings.
func Attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.Key] = valueString(kv.Value)
	}
	return out
}

func valueString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	case *commonpb.AnyValue_IntValue:
		return itoa(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return ftoa(x.DoubleValue)
	}
	return ""
}

// Wait polls until cond holds, failing the test after 20 s.
func Wait(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("OTLP receiver: gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
