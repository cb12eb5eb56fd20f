package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

// An edit that breaks a Go file gets gopls's error in its result; the fix
// clears it; an edit elsewhere does not repeat an old error.
func TestGoplsNewErrors(t *testing.T) {
	s := need(t, "gopls")
	h := newHarness(t, s, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n",
		"util.go": "package main\n\nfunc helper() int { return 1 }\n",
	})
	h.read("main.go")
	h.read("util.go")
	got := h.edit("main.go", "_ = x", `_ = x + "`+testSecret+`"`)
	mustHave(t, got, "<diagnostics>", "main.go:5:", "error:", `x + "[secret]"`)
	diag := h.events[len(h.events)-1]
	mustNotHave(t, diag.Message+fmt.Sprint(diag.Meta)+got[strings.Index(got, "<diagnostics>"):], testSecret)
	got = h.edit("main.go", "func main() {", "func main() { // unchanged error above")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("util.go", "return 1", "return 2")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("main.go", `_ = x + "`+testSecret+`"`, "_ = x + 1")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("main.go", "_ = x + 1", "_ = y")
	mustHave(t, got, "<diagnostics>", "undefined: y")
}

// The same for TypeScript through typescript-language-server (tsserver's
// error codes).
func TestTypeScriptNewErrors(t *testing.T) {
	s := need(t, "typescript")
	h := newHarness(t, s, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true,"noEmit":true}}`,
		"a.ts":          "export function twice(n: number): number {\n  return n * 2;\n}\n",
		"b.ts":          "import { twice } from \"./a\";\nexport const four: number = twice(2);\n",
	})
	h.read("a.ts")
	h.read("b.ts")
	got := h.edit("b.ts", "twice(2)", `twice("2")`)
	mustHave(t, got, "<diagnostics>", "b.ts:2:", "error:", "not assignable")
	got = h.edit("a.ts", "n * 2", "n * 3")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("b.ts", `twice("2")`, "twice(2)")
	mustNotHave(t, got, "<diagnostics>")
}

// The same for Python through pyright.
func TestPyrightNewErrors(t *testing.T) {
	s := need(t, "pyright")
	h := newHarness(t, s, map[string]string{
		"pyrightconfig.json": `{}`,
		"app.py":             "def twice(n: int) -> int:\n    return n * 2\n\n\nprint(twice(2))\n",
		"other.py":           "X = 1\n",
	})
	h.read("app.py")
	h.read("other.py")
	got := h.edit("app.py", "print(twice(2))", "print(twice(undefined_name))")
	mustHave(t, got, "<diagnostics>", "app.py:5:", "error:", "undefined_name")
	got = h.edit("other.py", "X = 1", "X = 2")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("app.py", "twice(undefined_name)", "twice(3)")
	mustNotHave(t, got, "<diagnostics>")
}

// A command's changes (reported by the checkpoint tracker inside) get the
// same check as a declared write; a killed server starts again on the
// next edit, which still gets its errors.
func TestGoplsCommandChangesAndRestart(t *testing.T) {
	s := need(t, "gopls")
	h := newHarness(t, s, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
	})
	h.read("main.go")
	h.edit("main.go", "func main() {}", "func main() { _ = 1 }")
	sh := WrapTools(h.m, []tool.Tool{shellLike{}})[0]
	run := func(content string) string {
		raw, _ := json.Marshal(map[string]string{"path": filepath.Join(h.dir, "main.go"), "content": content})
		res, err := sh.Execute(context.Background(), tool.Call{ID: "toolu_2", Name: "Sh", Input: raw, Env: h.env})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content
	}
	got := run("package main\n\nfunc main() { return 1 }\n")
	mustHave(t, got, "<diagnostics>", "main.go:3:", "too many return values")
	if n := len(h.events); n == 0 || h.events[n-1].Type != event.Diagnostics || h.events[n-1].ToolUseID != "toolu_2" {
		t.Fatalf("no diagnostics event for the call: %+v", h.events)
	}

	clients := h.m.running()
	if len(clients) != 1 {
		t.Fatalf("%d servers running, want 1", len(clients))
	}
	clients[0].proc.kill()
	<-clients[0].proc.done
	got = run("package main\n\nfunc main() { undefinedCall() }\n")
	mustHave(t, got, "<diagnostics>", "undefined: undefinedCall")
	if again := h.m.running(); len(again) != 1 || again[0] == clients[0] {
		t.Fatalf("the server was not started again: %v", again)
	}
}

// shellLike is a command tool: it writes a file it does not declare and
// reports it as the checkpoint tracker's scan does.
type shellLike struct{}

func (shellLike) Name() string            { return "Sh" }
func (shellLike) Description() string     { return "" }
func (shellLike) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (shellLike) Kind() tool.Kind         { return tool.KindExecute }
func (shellLike) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	var in struct{ Path, Content string }
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tool.Result{}, err
	}
	if err := os.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
		return tool.Result{}, err
	}
	tool.ReportChanged(ctx, in.Path)
	return tool.Result{Content: "ok"}, nil
}

// The lsp tool answers definition, references, hover and workspace
// symbols from gopls.
func TestLSPToolGopls(t *testing.T) {
	s := need(t, "gopls")
	h := newHarness(t, s, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {\n\tprintln(helper())\n}\n",
		"util.go": "package main\n\n// helper returns one.\nfunc helper() int { return 1 }\n",
	})
	lt := NewTool(h.m)
	if r := lt.Unavailable(""); r != "" {
		t.Fatalf("unavailable: %s", r)
	}
	ask := func(in map[string]any) string {
		t.Helper()
		raw, _ := json.Marshal(in)
		res, err := lt.Execute(context.Background(), tool.Call{ID: "t", Name: "lsp", Input: raw, Env: h.env})
		if err != nil || res.IsError {
			t.Fatalf("%v: %v %s", in, err, res.Content)
		}
		return res.Content
	}
	at := map[string]any{"file_path": "main.go", "line": 4, "character": 11}
	with := func(op string) map[string]any {
		m := map[string]any{"operation": op}
		for k, v := range at {
			m[k] = v
		}
		return m
	}
	mustHave(t, ask(with("definition")), "util.go:4:6: func helper() int { return 1 }")
	mustHave(t, ask(with("references")), "util.go:4:6", "main.go:4:10")
	mustHave(t, ask(with("hover")), "func helper() int", "helper returns one.")
	mustHave(t, ask(map[string]any{"operation": "workspace_symbol", "query": "helper"}), "util.go:4:6", "helper")
}

// The same for C through clangd (Debian's package; .ci/run installs it):
// a file with no compile_commands.json is found by its ending, and the
// project folder is its root.
func TestClangdNewErrors(t *testing.T) {
	s := need(t, "clangd")
	h := newHarness(t, s, map[string]string{
		"compile_flags.txt": "-std=c11\n",
		"main.c":            "int helper(void) { return 1; }\n\nint main(void) {\n\treturn helper();\n}\n",
	})
	h.read("main.c")
	got := h.edit("main.c", "return helper();", "return helper(1, 2);")
	mustHave(t, got, "<diagnostics>", "main.c:4:", "oo many arguments to function call")
	got = h.edit("main.c", "return helper(1, 2);", "return helper();")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("main.c", "return helper();", "return undeclared_thing;")
	mustHave(t, got, "<diagnostics>", "undeclared")
}
