package layers_test

import (
	"slices"
	"testing"
)

// notAtRest are what the tandem binary must not link (issue 32: telemetry
// off costs nothing at rest): their package initialisers run at every
// start, configured or not. tandem's own OTLP exporters
// (internal/telemetry/otlpexport) need none of them: protobuf-go (even
// encoding/protowire imports its internal/detrand, whose initialiser
// reads the executable), gRPC and what it brings, and the official OTLP
// exporters and protobufs (test-only: internal/telemetry/otlptest).
var notAtRest = []string{
	"google.golang.org/protobuf",
	"google.golang.org/grpc",
	"google.golang.org/genproto/",
	"github.com/grpc-ecosystem/grpc-gateway/",
	"golang.org/x/net/trace",
	"go.opentelemetry.io/proto/otlp",
	"go.opentelemetry.io/otel/exporters/otlp/",
}

// What `go list -deps ./cmd/tandem` lists: none of notAtRest.
func TestTelemetryLinksNothingAtRest(t *testing.T) {
	deps := listDeps(t, "./cmd/tandem")
	if !slices.Contains(deps, module+"/internal/telemetry/otlpexport") {
		t.Fatalf("go list -deps ./cmd/tandem does not list internal/telemetry/otlpexport: %q", deps)
	}
	if bad := atRestIn(deps); len(bad) > 0 {
		t.Errorf("the tandem binary links %q, whose initialisers run at every start even with telemetry off (docs/benchmarks.md, \"Telemetry off\"); `go mod why -m` or internal/layers_test.go's graph names who imports them", bad)
	}
}

func atRestIn(deps []string) []string {
	var bad []string
	for _, d := range deps {
		if matchesAny(d, notAtRest) {
			bad = append(bad, d)
		}
	}
	return bad
}

func TestAtRestInCatchesEach(t *testing.T) {
	got := atRestIn([]string{"fmt", "google.golang.org/protobuf/encoding/protowire", "google.golang.org/grpc", "google.golang.org/grpc/codes",
		"google.golang.org/genproto/googleapis/rpc/status", "github.com/grpc-ecosystem/grpc-gateway/v2/runtime", "golang.org/x/net/trace",
		"golang.org/x/net/http2", "go.opentelemetry.io/proto/otlp/trace/v1", "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc",
		"go.opentelemetry.io/otel/sdk/trace", "github.com/gogo/protobuf/proto"})
	want := []string{"google.golang.org/protobuf/encoding/protowire", "google.golang.org/grpc", "google.golang.org/grpc/codes",
		"google.golang.org/genproto/googleapis/rpc/status", "github.com/grpc-ecosystem/grpc-gateway/v2/runtime", "golang.org/x/net/trace",
		"go.opentelemetry.io/proto/otlp/trace/v1", "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"}
	if !slices.Equal(got, want) {
		t.Errorf("atRestIn = %q, want %q", got, want)
	}
}
