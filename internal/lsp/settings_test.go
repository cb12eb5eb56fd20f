package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/config"
)

func TestResolve(t *testing.T) {
	s, err := Resolve(&config.LSP{WaitMS: 500, Servers: map[string]config.LSPServer{
		"clangd": {Disabled: true},
		"gopls":  {Command: []string{"/opt/gopls", "-remote=auto"}},
		"zig":    {Command: []string{"zls"}, Extensions: []string{".zig"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s.WaitMS != 500 || s.StartMS != 15000 || s.MaxDiagnostics != 10 {
		t.Errorf("settings %+v", s)
	}
	var names []string
	for _, srv := range s.Servers {
		names = append(names, srv.Name)
	}
	if got := strings.Join(names, " "); got != "gopls pyright rust-analyzer typescript zig" {
		t.Errorf("servers %s", got)
	}
	if srv, id, ok := s.serverFor("/w/a.zig"); !ok || srv.Name != "zig" || id != "zig" {
		t.Errorf("a.zig: %v %s %v", srv.Name, id, ok)
	}
	if srv, _, _ := s.serverFor("/w/main.go"); srv.Commands[0][0] != "/opt/gopls" {
		t.Errorf("gopls command %v", srv.Commands)
	}
	if _, _, ok := s.serverFor("/w/main.c"); ok {
		t.Error("clangd is disabled")
	}
	if srv, id, _ := s.serverFor("/w/App.TSX"); srv.Name != "typescript" || id != "typescriptreact" {
		t.Errorf("tsx: %s %s", srv.Name, id)
	}
	for _, c := range []struct {
		cfg  config.LSP
		want string
	}{
		{config.LSP{WaitMS: -1}, "lsp.wait_ms"},
		{config.LSP{Servers: map[string]config.LSPServer{"x": {Command: []string{"x"}}}}, "lsp.servers.x is not a built-in server"},
		{config.LSP{Servers: map[string]config.LSPServer{"x": {Command: []string{"x"}, Extensions: []string{"go"}}}}, `".go"`},
		{config.LSP{Servers: map[string]config.LSPServer{"gopls": {Command: []string{""}}}}, "empty program name"},
	} {
		if _, err := Resolve(&c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// A missing server is named with the way to install or turn it off.
func TestMissingServerNamed(t *testing.T) {
	s, _ := Resolve(nil)
	srv, _, _ := s.serverFor("x.py")
	_, err := findCommand(srv, "/nonexistent", nil)
	if err == nil || !strings.Contains(err.Error(), "pyright-langserver or basedpyright-langserver is not installed") ||
		!strings.Contains(err.Error(), "lsp.servers.pyright.disabled") {
		t.Errorf("%v", err)
	}
}

// Errors are new by what they say, not where: an edit above an old error
// moves it without making it new; a second copy of one is new.
func TestNewErrors(t *testing.T) {
	d := func(line int, msg string) Diagnostic {
		return Diagnostic{Range: Range{Start: Position{Line: line}}, Severity: SeverityError, Message: msg, Code: json.RawMessage(`1`)}
	}
	prior := []Diagnostic{d(3, "undefined: x")}
	now := []Diagnostic{d(5, "undefined: x"), d(7, "undefined: x"), d(9, "missing return")}
	got := newErrors(prior, now)
	if len(got) != 2 || got[0].Range.Start.Line != 7 || got[1].Message != "missing return" {
		t.Errorf("%+v", got)
	}
	warn := Diagnostic{Severity: SeverityWarning, Message: "unused"}
	if e := errorsOnly([]Diagnostic{warn, d(1, "e")}); len(e) != 1 || e[0].Message != "e" {
		t.Errorf("errorsOnly %+v", e)
	}
	r := Report{Files: []FileErrors{{Path: "/w/a.go", New: []Diagnostic{d(0, "one"), d(1, "two"), d(2, "three")}}}}
	text := r.Text("/w", 2)
	for _, want := range []string{"a.go:1:1: error: one", "a.go:2:1: error: two", "... and 1 more errors"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "three") {
		t.Errorf("over the cap:\n%s", text)
	}
}
