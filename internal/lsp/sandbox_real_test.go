package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/sandbox"
)

// With the session's sandbox on, gopls starts inside it (the starter the
// session's commands use) and still gives the edit's error: it reads the
// workspace and the Go toolchain, and writes Go's build cache, under the
// sandbox's rules. The home is fresh: no Go cache exists yet, which the
// sandbox's go profile must make before it can grant it.
func TestGoplsInsideSandbox(t *testing.T) {
	s := need(t, "gopls")
	h := newHarness(t, s, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n",
	})
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "HOME", "GOCACHE", "GOMODCACHE", "GOPATH", "XDG_CACHE_HOME", "GOENV":
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home)
	h.m.opts.Env = env
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sandbox.Build(sandbox.Input{Roots: []string{h.dir}, Home: home, TempDir: t.TempDir(),
		Secrets: []string{filepath.Join(home, ".ssh")}, Getenv: func(k string) string {
			for _, kv := range env {
				if strings.HasPrefix(kv, k+"=") {
					return kv[len(k)+1:]
				}
			}
			return ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(p, exe)
	if err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	t.Cleanup(func() { sb.Close() })
	h.m.opts.Starter = sb
	h.read("main.go")
	got := h.edit("main.go", "_ = x", "_ = x + \"s\"")
	mustHave(t, got, "<diagnostics>", "main.go:5:", "error:")
	got = h.edit("main.go", "_ = x + \"s\"", "_ = x + 1")
	mustNotHave(t, got, "<diagnostics>")
}
