package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// A session's Write and Bash calls that break Go files get gopls's errors
// in their results and a diagnostics event each (docs/lsp.md): the
// application wires the language servers outside the checkpoint recorder,
// whose scan names what the command changed.
func TestE2ELanguageServerErrors(t *testing.T) { languageServerErrors(t) }

// The same with the sandbox on: gopls starts inside the session's sandbox,
// as its commands do, and still reads the workspace and Go's caches.
func TestE2ELanguageServerErrorsSandboxed(t *testing.T) { languageServerErrors(t, "--sandbox") }

func languageServerErrors(t *testing.T, args ...string) {
	bin, _ := filepath.Abs("../../bin")
	if _, err := exec.LookPath("gopls"); err != nil {
		if _, err := os.Stat(filepath.Join(bin, "gopls")); err != nil {
			msg := "gopls is not installed: .ci/run installs it into bin/ (GOBIN=$PWD/bin go install golang.org/x/tools/gopls@v0.23.0)"
			if os.Getenv("TANDEM_REQUIRE_LSP") != "" {
				t.Fatal("TANDEM_REQUIRE_LSP is set: " + msg)
			}
			t.Skip(msg)
		}
	}
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": "broken.go", "content": "package main\n\nfunc f() int { return \"s\" }\n"})),
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": `printf 'package main\n\nfunc g() { undefinedThing() }\n' > cmd.go`})),
		scripted.TextStep("Done."),
	}})
	x.WriteFile("go.mod", "module example.com/m\n\ngo 1.22\n")
	x.WriteFile("main.go", "package main\n\nfunc main() {}\n")
	// Waits as deadlines: a loaded machine starts gopls slowly.
	x.WriteConfig(`{"lsp": {"wait_ms": 60000, "start_ms": 120000}}`)
	x.Env = append(x.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := x.RunStream("break it", append([]string{"--permission-mode", "trust"}, args...)...)
	mustSucceed(t, r)
	results := map[string]string{}
	diags := map[string]event.Event{}
	for _, e := range r.Events {
		switch e.Type {
		case event.ToolResult:
			results[e.ToolName] = e.Output
		case event.Diagnostics:
			diags[e.ToolName] = e
		case event.Status:
			t.Log("status: " + e.Message)
		}
	}
	for name, want := range map[string]string{"Write": "broken.go:3:", "Bash": "undefined: undefinedThing"} {
		if !strings.Contains(results[name], "<diagnostics>") || !strings.Contains(results[name], want) {
			t.Errorf("%s's result lacks the new error %q:\n%s", name, want, results[name])
		}
		if d, ok := diags[name]; !ok || !strings.Contains(d.Message, want) {
			t.Errorf("no diagnostics event for %s naming %q: %+v", name, want, d)
		}
	}
	if strings.Contains(results["Bash"], "broken.go") {
		t.Errorf("the command's result repeats the earlier file's error:\n%s", results["Bash"])
	}
}
