package layers_test

import (
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
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

// storeContract is the store's contract package: its rows (store.Session,
// store.SubagentRun) and its interfaces.
const storeContract = module + "/internal/store"

// storeInFrontEnds are the front-end files allowed to import the store
// contract, each with why. Sessions, their messages, sub-agents and the
// store's errors reach the front ends through the session layer
// (session.Summary, Manager.List/Find/Latest/Messages/Subagents/Fork,
// session.ErrNotFound ...), so that a front end never reads a storage row
// (docs/ARCHITECTURE.md, "The store contract").
var storeInFrontEnds = map[string]map[string]string{
	module + "/internal/bridge": {
		"bindings.go": "the chat bridges' own records (which chat is bound to which session, the platform update ids taken), not a session's",
	},
	module + "/internal/server": {
		"workspaces.go": "the registry of folders `tandem serve` lets agents run in: the server's own list, not a session's",
		"eventlog.go":   "the stored event log replicas stream SSE from (store.Events): events, not a session's rows",
		"replicas.go":   "the serve replicas' heartbeats (store.Replicas): the server's own registry, not a session's",
		"answers.go":    "permission answers shared by replicas (store.Answers): the first answer on any replica wins once",
	},
}

// frontEndStoreImports lists the front-end packages (server, tui, acp,
// cliproto, cmd/..., their subpackages, and the public Go API at the
// module root) of g that import the store
// contract, but for the allowed ones. The store's tools (storeopen for
// `tandem doctor`, storecopy for `tandem sessions migrate`) are not the
// contract and stay allowed.
func frontEndStoreImports(g graph) []string {
	var bad []string
	for p, imports := range g {
		if (p != module && !matchesAny(p, uiPkgs)) || storeInFrontEnds[p] != nil {
			continue
		}
		if slices.Contains(imports, storeContract) {
			bad = append(bad, short(p))
		}
	}
	slices.Sort(bad)
	return bad
}

// storeImportingFiles lists the non-test Go files of dir that import the
// store contract.
func storeImportingFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		for _, imp := range parsed.Imports {
			if strings.Trim(imp.Path.Value, `"`) == storeContract {
				out = append(out, filepath.Base(f))
			}
		}
	}
	return out
}

func TestFrontEndsDoNotImportTheStore(t *testing.T) {
	for _, p := range frontEndStoreImports(loadGraph(t)) {
		t.Errorf("%s imports %s: get sessions from the session layer (session.Summary, Manager.List, Find, Messages, Subagents; session.ErrNotFound), or add the file to storeInFrontEnds saying why", p, short(storeContract))
	}
	// An allowed package may name the store only in its allowed files.
	for p, allowed := range storeInFrontEnds {
		dir := filepath.Join("..", strings.TrimPrefix(p, module+"/"))
		for _, f := range storeImportingFiles(t, dir) {
			if _, ok := allowed[f]; !ok {
				t.Errorf("%s/%s imports %s: only %v may (storeInFrontEnds); get sessions from the session layer", short(p), f, short(storeContract), slices.Sorted(maps.Keys(allowed)))
			}
		}
	}
}

// The rule catches a front end importing the contract, directly, in a
// subpackage or in a command, and leaves the store's tools and the
// allowed package alone: checked on a made-up graph, since the real one
// obeys it.
func TestFrontEndsDoNotImportTheStoreNamesTheEdge(t *testing.T) {
	m := func(s string) string { return module + "/internal/" + s }
	g := graph{
		m("tui"):               {storeContract},
		m("tui/appbackend"):    {m("session"), storeContract},
		m("acp"):               {m("session")},
		m("cliproto"):          {storeContract},
		m("server"):            {storeContract, m("session")},
		m("app"):               {storeContract},
		module + "/cmd/tandem": {m("store/storeopen"), m("store/storecopy"), storeContract},
		module + "/cmd/other":  {m("store/storeopen")},
		module:                 {storeContract},
	}
	got := frontEndStoreImports(g)
	want := []string{"cmd/tandem", module, "internal/cliproto", "internal/tui", "internal/tui/appbackend"}
	if !slices.Equal(got, want) {
		t.Errorf("violations %q, want %q", got, want)
	}
}
