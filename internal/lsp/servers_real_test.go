package lsp

import (
	"testing"
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
	got := h.edit("main.go", "_ = x", `_ = x + "a"`)
	mustHave(t, got, "<diagnostics>", "main.go:5:", "error:")
	t.Log(got)
	got = h.edit("main.go", "func main() {", "func main() { // unchanged error above")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("util.go", "return 1", "return 2")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("main.go", `_ = x + "a"`, "_ = x + 1")
	mustNotHave(t, got, "<diagnostics>")
	got = h.edit("main.go", "_ = x + 1", "_ = y")
	mustHave(t, got, "<diagnostics>", "undefined: y")
}
