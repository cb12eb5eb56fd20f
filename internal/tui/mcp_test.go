package tui

import (
	"errors"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/mcp"
)

// mcpBackend is a fakeBackend with MCP servers whose states the actions
// change.
type mcpBackend struct {
	*fakeBackend
	mu      sync.Mutex
	servers []mcp.ServerStatus
	actions []string
}

func (b *mcpBackend) Features() Features {
	f := b.fakeBackend.Features()
	f.MCP = b
	return f
}

func (b *mcpBackend) MCPStatus() ([]mcp.ServerStatus, []mcp.PromptInfo) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]mcp.ServerStatus(nil), b.servers...), nil
}

func (b *mcpBackend) MCPAction(server, action string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.actions = append(b.actions, action+" "+server)
	for i := range b.servers {
		if b.servers[i].Name != server {
			continue
		}
		switch action {
		case "disable":
			b.servers[i].State, b.servers[i].Error = mcp.StateDisabled, ""
		case "reconnect":
			if b.servers[i].Name == "broken" {
				return errors.New("broken: still failing: exit status 1")
			}
			b.servers[i].State = mcp.StateConnected
		case "approve":
			b.servers[i].NeedsApproval, b.servers[i].State = false, mcp.StateConnected
		case "login":
			b.servers[i].AuthURL = "https://auth.example/authorize?client_id=tandem&state=s1"
		}
	}
	return nil
}

// /mcp lists the servers with their state, tools and error; enter shows a
// server's tools and stderr; the keys act on the selected server.
func TestMCPPanel(t *testing.T) {
	be := &mcpBackend{fakeBackend: newFake(), servers: []mcp.ServerStatus{
		{Name: "files", Type: "stdio", State: mcp.StateConnected, Tools: 2, ToolNames: []string{"mcp__files__read", "mcp__files__list"}},
		{Name: "broken", Type: "stdio", State: mcp.StateFailed, Error: "exit status 1", Stderr: "boot\npanic: no config\n"},
		{Name: "repo", Type: "http", Scope: "project", State: mcp.StateDisabled, NeedsApproval: true},
	}}
	h := newHarness(t, Options{Backend: be})
	h.slash("/mcp")
	h.mustShow("MCP servers")
	h.mustShow("files                stdio  connected      2 tools")
	h.mustShow("needs approval (a)")
	h.press(tea.KeyEnter, 0)
	h.mustShow("tools: mcp__files__read, mcp__files__list")
	h.press(tea.KeyDown, 0)
	h.mustShow("exit status 1")
	h.press(tea.KeyEnter, 0)
	h.mustShow("panic: no config")
	h.typeText("r")
	h.waitFor("the refused reconnect", func() bool { return h.contains("broken: still failing") })
	h.press(tea.KeyDown, 0)
	h.typeText("a")
	h.waitFor("the approval", func() bool { return h.contains("approve repo: done") })
	h.mustShow("repo                 http   connected")
	h.press(tea.KeyUp, 0)
	h.press(tea.KeyUp, 0)
	h.typeText("d")
	h.waitFor("the disable", func() bool { return h.contains("disable files: done") })
	h.mustShow("files                stdio  disabled")
	h.press(tea.KeyEscape, 0)
	if h.contains("MCP servers") {
		t.Fatalf("panel still open:\n%s", h.plain())
	}
	be.mu.Lock()
	defer be.mu.Unlock()
	if got := len(be.actions); got != 3 {
		t.Errorf("actions %v", be.actions)
	}
}

// Without servers /mcp says how to add one.
func TestMCPPanelWithoutServers(t *testing.T) {
	be := &mcpBackend{fakeBackend: newFake()}
	h := newHarness(t, Options{Backend: be})
	h.slash("/mcp")
	h.mustShow("No MCP servers: add one with")
}

// A server that needs sign-in offers `l`, and the panel then shows the
// whole URL to open.
func TestMCPPanelSignIn(t *testing.T) {
	be := &mcpBackend{fakeBackend: newFake(), servers: []mcp.ServerStatus{
		{Name: "linear", Type: "http", State: mcp.StateNeedsAuth, Error: "mcp server linear needs sign-in: run `tandem mcp login linear`"},
	}}
	h := newHarness(t, Options{Backend: be})
	h.slash("/mcp")
	h.mustShow("needs-auth (l)")
	h.typeText("l")
	h.waitFor("the sign-in URL", func() bool {
		return h.contains("https://auth.example/authorize?client_id=tandem&state=s1")
	})
	h.mustShow("open to sign in:")
	be.mu.Lock()
	defer be.mu.Unlock()
	if len(be.actions) != 1 || be.actions[0] != "login linear" {
		t.Errorf("actions %v", be.actions)
	}
}
