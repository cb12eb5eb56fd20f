// Package layers_test enforces the dependency rules of docs/ARCHITECTURE.md
// ("Layers") on the real import graph, as `go list -deps` reports it for
// the packages' non-test code.
package layers_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tandem-agent/tandem"

// pkg is the part of `go list -json` the rules read.
type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

// graph maps each package of the build (the module's and its
// dependencies', not the standard library's) to what it imports.
type graph map[string][]string

func loadGraph(t *testing.T) graph {
	t.Helper()
	touchSources(t)
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Standard", module+"/...")
	cmd.Dir = ".." // the module root: tests run in their package's folder
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	g := graph{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		if !p.Standard {
			g[p.ImportPath] = p.Imports
		}
	}
	if len(g[module+"/internal/agent"]) == 0 {
		t.Fatalf("go list reported no imports for %s/internal/agent; is the module root %q?", module, "..")
	}
	return g
}

// touchSources stats every Go file and go.mod of the module, so that go
// test's result cache, which cannot see what the go list subprocess reads,
// is invalidated when an import changes.
func touchSources(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod") {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatalf("walk the module: %v", err)
	}
}

// path returns the shortest import chain from root to a package that bad
// matches, following only packages that follow reports true for (beside
// root itself); nil when there is none.
func (g graph) path(root string, follow, bad func(string) bool) []string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range g[p] {
			if _, seen := prev[imp]; seen {
				continue
			}
			if _, known := g[imp]; !known {
				continue // standard library
			}
			prev[imp] = p
			if bad(imp) {
				var chain []string
				for q := imp; q != ""; q = prev[q] {
					chain = append([]string{short(q)}, chain...)
				}
				return chain
			}
			if follow(imp) {
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

func short(p string) string { return strings.TrimPrefix(p, module+"/") }

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func internalPkg(p string) bool { return under(p, module+"/internal") }

// A rule: no package matching from may reach a package matching bad.
type rule struct {
	name string
	from func(string) bool
	bad  func(from, to string) bool
	// follow limits the search: direct imports only (false) or the whole
	// transitive closure (true).
	transitive bool
}

func (r rule) check(t *testing.T, g graph) {
	t.Helper()
	for p := range g {
		if !r.from(p) {
			continue
		}
		follow := func(string) bool { return r.transitive }
		if chain := g.path(p, follow, func(to string) bool { return r.bad(p, to) }); chain != nil {
			t.Errorf("%s: %s", r.name, strings.Join(chain, " -> "))
		}
	}
}

var (
	// The front ends: only the wiring (cmd/...) imports them.
	uiPkgs = []string{module + "/internal/server", module + "/internal/tui", module + "/internal/acp",
		module + "/internal/cliproto", module + "/internal/bridge", module + "/cmd"}
	// The adapters and what they link: only internal/provider/providers
	// (used by app) may import them.
	sdkPkgs = []string{
		"github.com/anthropics", "github.com/openai", "charm.land/fantasy",
		module + "/internal/provider/anthropic", module + "/internal/provider/openai",
		module + "/internal/provider/responses", module + "/internal/provider/gemini",
		module + "/internal/provider/providers",
	}
	terminalUI = []string{module + "/internal/tui", "charm.land/bubbletea", "charm.land/lipgloss",
		"charm.land/bubbles", "github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss",
		"github.com/charmbracelet/bubbles"}
	core = []string{"agent", "session", "tool", "tools", "permission", "event", "message", "store"}
	// openaiRoot is the OpenAI SDK (root package; its subpackages are
	// under it).
	openaiRoot = "github.com/openai/openai-go/v3"
)

func matchesAny(p string, prefixes []string) bool {
	for _, x := range prefixes {
		if under(p, x) || (strings.HasSuffix(x, "/") && strings.HasPrefix(p, x)) {
			return true
		}
	}
	return false
}

// ground are the packages of the ground floor (their subpackages too).
var ground = []string{"event", "message", "structured", "prompt", "runtimes", "permit", "turn", "store", "provider", "config", "secretpaths", "gitrepo"}

// engineDeps are what the ground floor must not reach: the permission
// engine, the tools, the agent loop, the adapters and what they link.
var engineDeps = append([]string{module + "/internal/permission", module + "/internal/tools", module + "/internal/tool/",
	module + "/internal/agent", "mvdan.cc/sh", "github.com/ledongthuc/pdf", "golang.org/x/image"}, sdkPkgs...)

// providerBad is what no provider package reaches.
var providerBad = []string{module + "/internal/tool", module + "/internal/tools", module + "/internal/permission", module + "/internal/permit"}

func groundPkg(p string) bool {
	for _, g := range ground {
		// provider's adapters (provider/anthropic, ...) are not ground.
		if p == module+"/internal/"+g || (g != "provider" && under(p, module+"/internal/"+g)) {
			return true
		}
	}
	return false
}

func corePkg(p string) bool {
	for _, c := range core {
		if under(p, module+"/internal/"+c) {
			return true
		}
	}
	return false
}

func rules() []rule {
	return []rule{{
		// Only the wiring (cmd/...) imports the front ends; internal/app
		// fills in what they list through internal/listing's types. A
		// front end's own subpackages (servertest) may import it.
		name: "an internal package imports a front end (internal/server, tui, acp, cliproto or cmd/...)",
		from: internalPkg,
		bad: func(from, to string) bool {
			for _, ui := range uiPkgs {
				if under(to, ui) && !under(from, ui) {
					return true
				}
			}
			return false
		},
	}, {
		name:       "internal/agent links a provider SDK or adapter (it may use only internal/provider)",
		from:       func(p string) bool { return p == module+"/internal/agent" },
		bad:        func(_, to string) bool { return matchesAny(to, sdkPkgs) },
		transitive: true,
	}, {
		// Chat Completions and Responses, like Gemini, are tandem's own
		// plain HTTP clients (docs/decisions/providers.md): fantasy and
		// openai-go (its responses package alone has 55 initialisers)
		// cost every start their package initialisation.
		name:       "a command links charm.land/fantasy or openai-go",
		from:       func(p string) bool { return under(p, module+"/cmd") },
		bad:        func(_, to string) bool { return under(to, "charm.land/fantasy") || under(to, openaiRoot) },
		transitive: true,
	}, {
		// projectfiletest builds hostile files (links out of the
		// repository, FIFOs) for tests; no shipped code may carry it.
		name: "non-test code imports a test helper package (internal/projectfile/projectfiletest, internal/testfiles, internal/telemetry/otlptest: import them from _test.go files only)",
		from: func(p string) bool { return under(p, module) },
		bad: func(_, to string) bool {
			return to == module+"/internal/projectfile/projectfiletest" || to == module+"/internal/testfiles" ||
				to == module+"/internal/telemetry/otlptest"
		},
	}, {
		// The ground floor: contracts and data every layer shares. They
		// reach no engine, tool or adapter, so what builds on them does
		// not link the shell parser, the PDF reader or image decoders.
		name:       "a ground package (event, message, structured, prompt, runtimes, permit, turn, store, provider, config, secretpaths, gitrepo) reaches the engine, a tool or an adapter",
		from:       groundPkg,
		bad:        func(_, to string) bool { return matchesAny(to, engineDeps) },
		transitive: true,
	}, {
		// The store keeps conversations; what it stores is message's
		// types. A backend (a subpackage) may import the contract.
		name: "internal/store imports a tandem package other than internal/message",
		from: func(p string) bool { return under(p, module+"/internal/store") },
		bad: func(_, to string) bool {
			return under(to, module) && to != module+"/internal/message" && !under(to, module+"/internal/store")
		},
	}, {
		// A provider streams a request; what a tool does and whether it
		// may are the loop's business.
		name:       "internal/provider (or an adapter) reaches a tool or the permission contract",
		from:       func(p string) bool { return under(p, module+"/internal/provider") },
		bad:        func(_, to string) bool { return matchesAny(to, providerBad) },
		transitive: true,
	}, {
		name:       "the core links terminal UI code",
		from:       corePkg,
		bad:        func(_, to string) bool { return matchesAny(to, terminalUI) },
		transitive: true,
	}}
}

func TestLayers(t *testing.T) {
	g := loadGraph(t)
	for _, r := range rules() {
		r.check(t, g)
	}
}

// The rules must catch what they are about: checked on a made-up graph,
// since the real one obeys them.
func TestLayersNameTheEdge(t *testing.T) {
	m := func(s string) string { return module + "/internal/" + s }
	g := graph{
		m("agent"):              {m("provider"), m("compact")},
		m("compact"):            {m("provider/providers")},
		m("provider"):           nil,
		m("provider/providers"): {m("provider/anthropic")},
		m("provider/anthropic"): {"github.com/anthropics/anthropic-sdk-go/v2"},
		"github.com/anthropics/anthropic-sdk-go/v2": nil,
		m("store"):                       {m("tui")},
		m("store/sqlite"):                {m("store"), m("message"), m("regular")},
		m("message"):                     nil,
		m("regular"):                     nil,
		m("provider/gemini"):             {m("tool")},
		m("tool"):                        nil,
		m("prompt"):                      {m("permission")},
		m("tools/x"):                     {m("acp")},
		m("acp"):                         nil,
		m("tui"):                         {"charm.land/bubbletea/v2"},
		"charm.land/bubbletea/v2":        nil,
		m("server"):                      nil,
		m("server/servertest"):           {m("server")},
		m("app"):                         {m("server")},
		m("turn"):                        {m("permission")},
		m("permission"):                  {"mvdan.cc/sh/v3/syntax"},
		"mvdan.cc/sh/v3/syntax":          nil,
		m("config"):                      {m("projectfile/projectfiletest")},
		m("projectfile/projectfiletest"): nil,
		// The commands: fantasy through one adapter, an openai-go
		// subpackage through another.
		module + "/cmd/tandem":                {m("provider/openai")},
		m("provider/openai"):                  {"charm.land/fantasy/providers/openai"},
		"charm.land/fantasy/providers/openai": nil,
		module + "/cmd/other":                 {m("provider/responses")},
		m("provider/responses"):               {openaiRoot + "/responses"},
		openaiRoot + "/responses":             nil,
	}
	var got []string
	for _, r := range rules() {
		for p := range g {
			if !r.from(p) {
				continue
			}
			follow := func(string) bool { return r.transitive }
			if chain := g.path(p, follow, func(to string) bool { return r.bad(p, to) }); chain != nil {
				got = append(got, strings.Join(chain, " -> "))
			}
		}
	}
	want := []string{
		"internal/store -> internal/tui",                                    // a front end
		"internal/app -> internal/server",                                   // a front end, from the application
		"internal/turn -> internal/permission",                              // the engine, from the ground floor
		"internal/prompt -> internal/permission",                            // the engine, from the ground floor
		"internal/store -> internal/tui",                                    // the store imports more than message
		"internal/store/sqlite -> internal/regular",                         // a store backend imports more than the contract and message
		"internal/store/sqlite -> internal/store -> internal/tui",           // terminal UI, through the contract
		"internal/provider/gemini -> internal/tool",                         // a provider reaches a tool
		"internal/tools/x -> internal/acp",                                  // a front end, from a tool
		"internal/agent -> internal/compact -> internal/provider/providers", // an adapter
		"internal/store -> internal/tui",                                    // terminal UI
		"internal/config -> internal/projectfile/projectfiletest",           // a test helper
		"cmd/tandem -> internal/provider/openai -> charm.land/fantasy/providers/openai",
		"cmd/other -> internal/provider/responses -> github.com/openai/openai-go/v3/responses",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("violations %q, want %q (servertest importing server is allowed)", got, want)
	}
}

// heavyDeps are the packages the foundation must not link: the shell
// parser, the PDF reader and image decoders (the standard library's
// too), which only the tools need.
var heavyDeps = []string{"mvdan.cc/sh", "github.com/ledongthuc/pdf", "golang.org/x/image", "image"}

// What `go list -deps ./internal/turn ./internal/config ./internal/prompt`
// lists, the issue's own check: the turn contract, the configuration and
// the system prompt link no shell parser, PDF or image package, and the
// prompt reaches no engine.
func TestFoundationLinksNothingHeavy(t *testing.T) {
	deps := listDeps(t, "./internal/turn", "./internal/config", "./internal/prompt")
	if !slices.Contains(deps, module+"/internal/turn") {
		t.Fatalf("go list -deps did not list internal/turn: %q", deps)
	}
	if bad := heavyIn(deps); len(bad) > 0 {
		t.Errorf("turn, config or prompt links %q; move what needs them out of the foundation (internal/layers_test.go's ground rule names the chain)", bad)
	}
}

// listDeps is `go list -deps` of pkgs, from the module's root, on the
// sources as they are (touchSources).
func listDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	touchSources(t)
	cmd := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	return strings.Fields(string(out))
}

// heavyIn lists the deps that are heavy, or an engine or tool package.
func heavyIn(deps []string) []string {
	var bad []string
	for _, d := range deps {
		if matchesAny(d, heavyDeps) || matchesAny(d, []string{module + "/internal/permission", module + "/internal/tools", module + "/internal/agent"}) {
			bad = append(bad, d)
		}
	}
	return bad
}

func TestHeavyInCatchesEach(t *testing.T) {
	got := heavyIn([]string{"fmt", "image/png", "mvdan.cc/sh/v3/syntax", "github.com/ledongthuc/pdf", module + "/internal/permission", module + "/internal/tool", "imagex"})
	want := []string{"image/png", "mvdan.cc/sh/v3/syntax", "github.com/ledongthuc/pdf", module + "/internal/permission"}
	if !slices.Equal(got, want) {
		t.Errorf("heavyIn = %q, want %q", got, want)
	}
}
