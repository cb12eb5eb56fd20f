package layers_test

import (
	"strings"
	"testing"
)

// storeBackends are the store's backends: only the store's own packages
// (the opener, the backends, tools over several backends such as a copy
// between them) name them, so every other package holds the contract
// (internal/store) and a backend can be added or swapped in one place
// (docs/ARCHITECTURE.md, "The store contract").
var storeBackends = []string{module + "/internal/store/sqlite", module + "/internal/store/postgres"}

func TestOnlyStorePackagesNameABackend(t *testing.T) {
	g := loadGraph(t)
	for p, imports := range g {
		if !strings.HasPrefix(p, module+"/") || under(p, module+"/internal/store") {
			continue
		}
		for _, imp := range imports {
			if matchesAny(imp, storeBackends) {
				t.Errorf("%s imports the store backend %s: hold a store.Store from internal/store/storeopen instead", short(p), short(imp))
			}
		}
	}
}
