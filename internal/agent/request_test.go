package agent

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// fakePrompter records what the loop asked of the system prompt.
type fakePrompter struct {
	base string
	mu   sync.Mutex
	envs int
	reqs []prompt.Request
}

func (f *fakePrompter) Environment(context.Context, string) prompt.Environment {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.envs++
	return prompt.Environment{Date: "2026-01-02"}
}

func (f *fakePrompter) Sections(req prompt.Request) []prompt.Section {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	secs := []prompt.Section{{Name: "base", Text: f.base}}
	if req.Append != "" {
		secs = append(secs, prompt.Section{Block: 1, Name: "appended", Text: req.Append})
	}
	return secs
}

// writeTool is a tool that may change things (no ReadOnly).
type writeTool struct{ echoTool }

func (*writeTool) Name() string   { return "Edit" }
func (*writeTool) ReadOnly() bool { return false }

// offlineTool cannot work with any model.
type offlineTool struct{ echoTool }

func (*offlineTool) Name() string                { return "WebSearch" }
func (*offlineTool) Unavailable(m string) string { return "no search backend for " + m }
func (*offlineTool) Schema() json.RawMessage     { return json.RawMessage(`{"type":"object"}`) }
func (*offlineTool) Description() string         { return "search" }
func (*offlineTool) ReadOnly() bool              { return true }
func (o *offlineTool) Execute(ctx context.Context, c tool.Call) (tool.Result, error) {
	return o.echoTool.Execute(ctx, c)
}

// modeChecker allows everything and reports a mode and whether it can ask,
// as the permission engine does.
type modeChecker struct {
	permission.AllowAll
	mode   permission.Mode
	canAsk bool
}

func (m modeChecker) Mode() permission.Mode { return m.mode }
func (m modeChecker) CanAsk() bool          { return m.canAsk }

func offeredIn(h *harness, call int) []string {
	var names []string
	for _, s := range h.prov.calls[call].Tools {
		names = append(names, s.Name)
	}
	return names
}

func TestExploreModeOffersOnlyToolsThatCanWork(t *testing.T) {
	h := newHarness(t, textStep("a"), textStep("b"))
	p := &fakePrompter{base: "BASE"}
	h.rt.opts.Prompt = p
	h.deps.Tools.Add(&writeTool{}, &offlineTool{})
	h.deps.Checker = modeChecker{mode: permission.Explore, canAsk: true}
	h.run(t, context.Background(), turn.Input{Model: "p/m"})
	if got := offeredIn(h, 0); !slices.Equal(got, []string{"Echo"}) {
		t.Errorf("explore mode offered %v, want only the read-only Echo (Edit cannot work, WebSearch is unavailable)", got)
	}
	if got := p.reqs[0]; got.Mode != permission.Explore || got.NoAsker || !slices.Equal(got.Tools, []string{"Echo"}) {
		t.Errorf("prompt request %+v", got)
	}
	h.deps.Checker = modeChecker{mode: permission.Trust, canAsk: false}
	h.run(t, context.Background(), turn.Input{Model: "p/m"})
	if got := offeredIn(h, 1); !slices.Equal(got, []string{"Echo", "Edit"}) {
		t.Errorf("trust mode offered %v", got)
	}
	if got := p.reqs[len(p.reqs)-1]; got.Mode != permission.Trust || !got.NoAsker {
		t.Errorf("prompt request without an asker: %+v", got)
	}
}

func TestEnvironmentTakenOncePerSession(t *testing.T) {
	h := newHarness(t, toolStep([2]string{"Echo", `{}`}), textStep("a"), textStep("b"))
	p := &fakePrompter{base: "BASE"}
	h.rt.opts.Prompt = p
	h.run(t, context.Background(), turn.Input{})
	h.run(t, context.Background(), turn.Input{})
	if len(p.reqs) != 3 || p.envs != 1 {
		t.Errorf("%d requests took the environment %d times, want once per session", len(p.reqs), p.envs)
	}
	if p.reqs[0].Env.Date != "2026-01-02" || p.reqs[2].Env != p.reqs[0].Env {
		t.Errorf("environment not passed on: %+v", p.reqs)
	}
}
