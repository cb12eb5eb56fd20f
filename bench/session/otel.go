package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
)

// otelSink is a local OTLP/HTTP endpoint that accepts and counts exports,
// for -otel: the cost of telemetry on, with a collector that answers at
// once.
type otelSink struct {
	exports, bytes atomic.Int64
	url            string
}

func startOtelSink() (*otelSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &otelSink{url: "http://" + ln.Addr().String()}
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n, _ := io.Copy(io.Discard, r.Body)
			s.exports.Add(1)
			s.bytes.Add(n)
			w.Header().Set("Content-Type", "application/x-protobuf")
		}))
	}()
	return s, nil
}

// setTelemetryEnv makes every tandem run export to sink (nil: telemetry
// off, whatever this shell's OTEL_* variables said).
func setTelemetryEnv(sink *otelSink) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") || k == "TANDEM_ENABLE_TELEMETRY" || k == "CLAUDE_CODE_ENABLE_TELEMETRY" {
			os.Unsetenv(k)
		}
	}
	if sink != nil {
		os.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", sink.url)
		os.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	}
}
