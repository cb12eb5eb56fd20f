package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// In the terminal UI, a real MCP server's question (server-everything's
// elicitation tool) is a form: the defaults shown, accepting with the
// required field empty names it and keeps the form, then the typed name
// is accepted and the server's reply, with the defaults, reaches the
// model.
func TestE2ETUIElicitationForm(t *testing.T) {
	t.Parallel()
	bin := testdepBin(t, "mcp-server-everything")
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("el1", "mcp__ev__trigger-elicitation-request", map[string]any{})),
		scripted.TextStep("Thanks for the answers."),
	}})
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{"mcpServers": map[string]any{"ev": map[string]any{"command": bin}}})
	p := x.startTUI(130, 60, "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "bypassPermissions")
	p.waitText("Ask tandem")
	p.typeText("ask me")
	p.keys("Enter")
	p.waitText("MCP server ev asks")
	for _, want := range []string{"Your full, legal name", "[It was a dark and stormy night.]", "[42]", "‹ Monica ›", "[x] Guitar", "‹ Superman ›", "‹ Cats ›"} {
		p.waitText(want)
	}
	p.waitText("decline") // the answers are armed
	p.keys("Enter")
	p.waitText("String: required")
	// Tab to the name field (titled "String"; the go-sdk hands the
	// schema's properties over sorted by name).
	for i := 0; i < 20 && !strings.Contains(p.screen(), "› String *"); i++ {
		p.keys("Tab")
		time.Sleep(100 * time.Millisecond)
	}
	p.waitText("› String *")
	p.typeText("Ana Lima")
	p.keys("Enter")
	p.waitText("Thanks for the answers.")
	deadline := time.Now().Add(10 * time.Second)
	for len(x.srv.MainRequests()) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	b := string(reqs[1].RawBody)
	for _, want := range []string{"User provided the requested information", "Name: Ana Lima", "Favorite Integer: 42"} {
		if !strings.Contains(b, want) {
			t.Errorf("the server's answer lacks %q:\n%.3000s", want, b)
		}
	}
}
