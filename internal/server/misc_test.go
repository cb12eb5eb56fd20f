package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

type panicCatalog struct{}

func (panicCatalog) Providers() []listing.ProviderInfo { panic("catalog exploded: sk-secret-key") }
func (panicCatalog) Models() []listing.ModelInfo {
	return []listing.ModelInfo{{ID: "anthropic/claude-sonnet-5-5", Provider: "anthropic"}}
}

func TestPanicBecomesJSON500(t *testing.T) {
	e := newEnv(t, textScript(), func(o *server.Options, _ *servertest.Config) { o.Catalog = panicCatalog{} })
	code, data := e.do("GET", "/api/providers", nil)
	if code != 500 || errCode(t, data) != "internal" {
		t.Fatalf("panic: %d %s", code, data)
	}
	if strings.Contains(string(data), "sk-secret") || strings.Contains(string(data), "goroutine") {
		t.Fatalf("panic details leaked: %s", data)
	}
	var models struct {
		Models []listing.ModelInfo
	}
	e.mustDo("GET", "/api/models", nil, 200, &models)
	if len(models.Models) != 1 {
		t.Fatalf("models: %+v", models)
	}
}

func TestLoadOrCreateToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "server-token")
	tok, created, err := server.LoadOrCreateToken(path)
	if err != nil || !created || len(tok) < 40 {
		t.Fatalf("create: %q %v %v", tok, created, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode: %v %v", fi.Mode(), err)
	}
	again, created, err := server.LoadOrCreateToken(path)
	if err != nil || created || again != tok {
		t.Fatalf("reload: %q %v %v", again, created, err)
	}
	os.WriteFile(path, []byte("short\n"), 0o600)
	if _, _, err := server.LoadOrCreateToken(path); err == nil {
		t.Fatal("short token accepted")
	}
	if _, err := server.New(server.Options{Token: "short"}); err == nil {
		t.Fatal("New accepted a missing manager and short token")
	}
}
