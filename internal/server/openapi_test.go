package server

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestOpenAPIMatchesRoutes holds docs/openapi.yaml to the routes the
// server registers: every path and method served is documented, and
// nothing documented is missing from the server.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	data, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths {
		for key := range item {
			switch key {
			case "get", "put", "post", "delete", "patch", "head", "options":
				documented[strings.ToUpper(key)+" "+path] = true
			}
		}
	}
	served := map[string]bool{}
	for _, rt := range (&Server{}).apiRoutes() {
		for method := range rt.methods {
			served[method+" "+rt.path] = true
		}
	}
	var missing, extra []string
	for k := range served {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		t.Errorf("served but not in docs/openapi.yaml: %v", missing)
	}
	if len(extra) > 0 {
		t.Errorf("in docs/openapi.yaml but not served: %v", extra)
	}
}
