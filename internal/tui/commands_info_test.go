package tui

import (
	"slices"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/skills"
)

// The UI answers exactly the commands the core reserves: a custom
// command file with one of these names is warned about, and the UI's own
// wins.
func TestBuiltinCommandsAreTheReservedOnes(t *testing.T) {
	var names []string
	for _, c := range builtinCommands() {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	want := slices.Clone(skills.BuiltinCommands)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("the UI's commands %v, the reserved ones %v", names, want)
	}
}

func TestCostStatusAndInit(t *testing.T) {
	be := &mcpBackend{fakeBackend: newFake()}
	cost := 0.1234
	be.info.Usage, be.info.CostUSD, be.info.Title = message.Usage{InputTokens: 1200, OutputTokens: 80, CacheReadTokens: 5000}, &cost, "fix the build"
	h := newHarness(t, Options{Backend: be})
	h.be = be.fakeBackend
	h.slash("/cost")
	h.mustShow("1200 input tokens, 80 output (cache: 5000 read, 0 written)")
	h.mustShow("$0.1234.")
	h.slash("/status")
	h.mustShow("Session: ses_1 · fix the build")
	h.mustShow("Model: anthropic/claude-sonnet-4-5 · runtime native · mode normal")
	h.slash("/init the test layout")
	h.waitFor("the /init turn", func() bool { return len(h.be.snapshot().prompts) == 1 })
	p := h.be.snapshot().prompts[0]
	if p != "/init the test layout" {
		t.Errorf("/init sent %q", p)
	}
}
