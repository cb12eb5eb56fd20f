package otlpexport

import (
	"compress/gzip"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // the test server accepts gzip
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// oneSpan is a span to export.
func oneSpan(name string) tracetest.SpanStubs {
	return tracetest.SpanStubs{{Name: name, SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}}), Attributes: []attribute.KeyValue{attribute.String("k", "v")}}}
}

// errs collects what OnError was told.
type errs struct {
	mu  sync.Mutex
	got []error
}

func (e *errs) add(err error) { e.mu.Lock(); e.got = append(e.got, err); e.mu.Unlock() }
func (e *errs) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return errors.Join(e.got...).Error()
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// OTLP/HTTP: headers and gzip reach the collector, a 503 is retried (its
// Retry-After honoured), a partial success is reported, a 400 is not
// retried and its google.rpc.Status message is in the error.
func TestHTTPExport(t *testing.T) {
	var mu sync.Mutex
	var calls int
	var names []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if r.URL.Path != "/custom/v1/traces" || r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Content-Encoding") != "gzip" {
			http.Error(w, "bad request line or headers: "+r.URL.Path+" "+r.Header.Get("Authorization"), http.StatusTeapot)
			return
		}
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(zr)
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		name := req.ResourceSpans[0].ScopeSpans[0].Spans[0].Name
		w.Header().Set("Content-Type", "application/x-protobuf")
		switch {
		case name == "retry" && n == 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		case name == "reject":
			st, _ := proto.Marshal(status.New(codes.InvalidArgument, "span too odd").Proto())
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(st)
			return
		}
		mu.Lock()
		names = append(names, name)
		mu.Unlock()
		resp, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{PartialSuccess: &coltrace.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "2 too old"}})
		_, _ = w.Write(resp)
	}))
	defer srv.Close()
	var seen errs
	cfg, err := Resolve(Source{Getenv: env(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":    srv.URL + "/custom",
		"OTEL_EXPORTER_OTLP_HEADERS":     "Authorization=Bearer%20tok",
		"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
	}), OnError: seen.add}, "traces", HTTP)
	if err != nil {
		t.Fatal(err)
	}
	cfg.backoff, cfg.maxBackoff = time.Millisecond, time.Millisecond
	exp, err := NewTraceExporter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := exp.ExportSpans(ctx, oneSpan("retry").Snapshots()); err != nil {
		t.Fatalf("a 503 then a 200: %v", err)
	}
	if calls != 2 || len(names) != 1 {
		t.Errorf("%d calls, %v accepted; want 2 calls, one accepted", calls, names)
	}
	if !strings.Contains(seen.String(), "rejected 2 (2 too old)") {
		t.Errorf("partial success not reported: %q", seen.String())
	}
	err = exp.ExportSpans(ctx, oneSpan("reject").Snapshots())
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "span too odd") || calls != 3 {
		t.Errorf("a 400: %v after %d calls; want its message, not retried", err, calls)
	}
	_ = exp.Shutdown(ctx)
	if err := exp.ExportSpans(ctx, oneSpan("late").Snapshots()); !errors.Is(err, errShutdown) {
		t.Errorf("export after shutdown: %v", err)
	}
}

// A Retry-After beyond the export timeout is not waited for.
func TestHTTPRetryAfterBeyondTimeout(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	exp, err := NewTraceExporter(Config{Protocol: HTTP, URL: mustURL(t, srv.URL+"/v1/traces"), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = exp.ExportSpans(context.Background(), oneSpan("x").Snapshots())
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "would pass the export timeout") || calls != 1 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}

// traceService is a gRPC collector that answers from a script.
type traceService struct {
	coltrace.UnimplementedTraceServiceServer
	mu      sync.Mutex
	calls   int
	headers []metadata.MD
	answer  func(call int, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error)
}

func (s *traceService) Export(ctx context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	s.mu.Lock()
	s.calls++
	n := s.calls
	md, _ := metadata.FromIncomingContext(ctx)
	s.headers = append(s.headers, md)
	s.mu.Unlock()
	return s.answer(n, req)
}

// grpcCollector serves svc with grpc-go over h2c; its http:// URL.
func grpcCollector(t *testing.T, svc *traceService) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(gs, svc)
	go func() { _ = gs.Serve(l) }()
	t.Cleanup(gs.Stop)
	return "http://" + l.Addr().String()
}

// OTLP/gRPC against grpc-go's server: UNAVAILABLE is retried, the
// partial success read from the answer's frame, headers arrive as
// metadata, gzip is understood; RESOURCE_EXHAUSTED is retried only with
// a RetryInfo; INVALID_ARGUMENT is not, its message in the error.
func TestGRPCExport(t *testing.T) {
	svc := &traceService{answer: func(n int, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
		switch name := req.ResourceSpans[0].ScopeSpans[0].Spans[0].Name; {
		case name == "retry" && n == 1:
			return nil, status.Error(codes.Unavailable, "warming up")
		case name == "exhausted-info" && n == 3:
			st, _ := status.New(codes.ResourceExhausted, "slow down").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Millisecond)})
			return nil, st.Err()
		case name == "exhausted":
			return nil, status.Error(codes.ResourceExhausted, "no more")
		case name == "bad":
			return nil, status.Error(codes.InvalidArgument, "bad span: ünïcode")
		}
		return &coltrace.ExportTraceServiceResponse{PartialSuccess: &coltrace.ExportTracePartialSuccess{RejectedSpans: 1, ErrorMessage: "one dropped"}}, nil
	}}
	base := grpcCollector(t, svc)
	var seen errs
	cfg, err := Resolve(Source{Getenv: env(map[string]string{
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": base + "/ignored/path",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":  "x-team=infra",
		"OTEL_EXPORTER_OTLP_HEADERS":         "x-team=general",
		"OTEL_EXPORTER_OTLP_COMPRESSION":     "gzip",
	}), OnError: seen.add}, "traces", GRPC)
	if err != nil {
		t.Fatal(err)
	}
	cfg.backoff, cfg.maxBackoff = time.Millisecond, time.Millisecond
	exp, err := NewTraceExporter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := exp.ExportSpans(ctx, oneSpan("retry").Snapshots()); err != nil {
		t.Fatalf("UNAVAILABLE then OK: %v", err)
	}
	if svc.calls != 2 || !strings.Contains(seen.String(), "rejected 1 (one dropped)") {
		t.Errorf("%d calls; reported %q", svc.calls, seen.String())
	}
	if md := svc.headers[1]; len(md.Get("x-team")) != 1 || md.Get("x-team")[0] != "infra" || md.Get("content-type")[0] != "application/grpc" {
		t.Errorf("metadata: %v", md)
	}
	if err := exp.ExportSpans(ctx, oneSpan("exhausted-info").Snapshots()); err != nil || svc.calls != 4 {
		t.Errorf("RESOURCE_EXHAUSTED with RetryInfo: %v, %d calls (want retried)", err, svc.calls)
	}
	if err := exp.ExportSpans(ctx, oneSpan("exhausted").Snapshots()); err == nil || !strings.Contains(err.Error(), "RESOURCE_EXHAUSTED") || svc.calls != 5 {
		t.Errorf("RESOURCE_EXHAUSTED without RetryInfo: %v, %d calls (want not retried)", err, svc.calls)
	}
	if err := exp.ExportSpans(ctx, oneSpan("bad").Snapshots()); err == nil || !strings.Contains(err.Error(), "INVALID_ARGUMENT: bad span: ünïcode") || svc.calls != 6 {
		t.Errorf("INVALID_ARGUMENT: %v, %d calls", err, svc.calls)
	}
}

// OTLP/gRPC over TLS, the collector's certificate trusted through
// OTEL_EXPORTER_OTLP_CERTIFICATE; without it the export fails on the
// certificate and is not retried.
func TestGRPCOverTLS(t *testing.T) {
	svc := &traceService{answer: func(int, *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
		return &coltrace.ExportTraceServiceResponse{}, nil
	}}
	gs := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(gs, svc)
	ts := httptest.NewUnstartedServer(gs)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ts.URL}
	untrusted, err := Resolve(Source{Getenv: env(vars)}, "traces", GRPC)
	if err != nil {
		t.Fatal(err)
	}
	exp, _ := NewTraceExporter(untrusted)
	err = exp.ExportSpans(context.Background(), oneSpan("x").Snapshots())
	var unknown x509.UnknownAuthorityError
	if err == nil || !errors.As(err, &unknown) || svc.calls != 0 {
		t.Errorf("an untrusted collector: %v", err)
	}
	vars["OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"] = caFile
	cfg, err := Resolve(Source{Getenv: env(vars), ReadFile: os.ReadFile}, "traces", GRPC)
	if err != nil {
		t.Fatal(err)
	}
	exp, _ = NewTraceExporter(cfg)
	if err := exp.ExportSpans(context.Background(), oneSpan("x").Snapshots()); err != nil || svc.calls != 1 {
		t.Errorf("a trusted collector: %v, %d calls", err, svc.calls)
	}
}

// An endpoint that is not a gRPC collector fails with an error naming
// the likely mix-up.
func TestGRPCToHTTPEndpoint(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("hello")) }))
	srv.EnableHTTP2 = true
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	exp, _ := NewTraceExporter(Config{Protocol: GRPC, URL: mustURL(t, srv.URL), Timeout: 5 * time.Second})
	err := exp.ExportSpans(context.Background(), oneSpan("x").Snapshots())
	if err == nil || !strings.Contains(err.Error(), "no grpc-status") {
		t.Errorf("err = %v", err)
	}
}

// A collector that is not listening fails the export at once, naming
// the variable to check, over both protocols.
func TestExportToNobody(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	for _, p := range []string{HTTP, GRPC} {
		exp, _ := NewTraceExporter(Config{Protocol: p, URL: mustURL(t, "http://"+addr+"/v1/traces"), backoff: time.Hour, maxBackoff: time.Hour})
		err := exp.ExportSpans(context.Background(), oneSpan("x").Snapshots())
		if err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_ENDPOINT") || strings.Contains(err.Error(), "no retry") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
