// Package otlpexport is tandem's OTLP exporters: the OpenTelemetry SDK's
// exporter interfaces (sdktrace.SpanExporter, sdkmetric.Exporter,
// sdklog.Exporter) over OTLP/HTTP (a protobuf POST) and OTLP/gRPC (a unary
// call over HTTP/2), the OTLP messages encoded by hand with a few wire
// primitives (protowire.go).
//
// Why not the official exporters: they link protobuf-go's registry, gRPC,
// genproto and grpc-gateway, whose package initialisers run at every start
// of tandem, telemetry on or off, and make the binary 7 MB larger
// (docs/benchmarks.md, "Telemetry off"). This package has no package
// initialiser and links nothing but the SDK and the standard library;
// net/http speaks HTTP/2 with and without TLS.
//
// The wire format is the one of go.opentelemetry.io/proto/otlp (the field
// numbers are the .proto files'); the tests decode every encoder's output
// with those official generated messages.
package otlpexport
