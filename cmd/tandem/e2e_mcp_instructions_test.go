package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// mcpInstructionsEnv holds the instructions the helper server gives.
const mcpInstructionsEnv = "TANDEM_TEST_MCP_INSTRUCTIONS"

// TestMCPInstructionsHelper is a stdio MCP server (the test binary run
// again, with TestMain building nothing) whose initialize result carries
// the instructions in its environment.
func TestMCPInstructionsHelper(t *testing.T) {
	t.Parallel()
	text := os.Getenv(mcpInstructionsEnv)
	if text == "" {
		t.Skip("run as an MCP server by TestMCPInstructionsInSystemPrompt")
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "instr", Version: "1"}, &sdk.ServerOptions{Instructions: text})
	sdk.AddTool(s, &sdk.Tool{Name: "noop", Description: "does nothing"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(0) // stdout belongs to the protocol: no PASS line after it
}

// instrServer is the config entry of the helper server giving text.
func instrServer(t *testing.T, text string) map[string]any {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": exe, "args": []string{"-test.run=^TestMCPInstructionsHelper$"},
		"env": map[string]string{signalHelperEnv: "mcp", mcpInstructionsEnv: text}}
}

// longInstructions: a head the model must see, a control sequence that
// must arrive escaped, and a tail past the per-server cap.
func longInstructions() string {
	return "HEAD-OF-INSTRUCTIONS use noop wisely \x1b[31mred\x1b[0m\n" + strings.Repeat("filler line of guidance\n", prompt.MCPInstructionsPerServer/24+10) + "TAIL-PAST-THE-CAP"
}

// A connected server's instructions reach the system prompt under Claude
// Code's heading, escaped and capped; `tandem prompt show` shows them.
func TestMCPInstructionsInSystemPrompt(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{
		"mcpServers": map[string]any{"instr": instrServer(t, longInstructions())}})
	r := x.RunDetached(streamArgs("hello")...)
	mustSucceed(t, r)
	sys := reqSystem(x.lastMain())
	for _, want := range []string{"# MCP Server Instructions", "## instr\nHEAD-OF-INSTRUCTIONS use noop wisely \\x1b[31mred", "[cut short]"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "TAIL-PAST-THE-CAP") || strings.Contains(sys, "\x1b") {
		t.Errorf("the instructions were not capped and escaped:\n%s", sys)
	}
	show := x.Run("prompt", "show")
	if show.Code != 0 || !strings.Contains(show.Stdout, "---- mcp instructions") || !strings.Contains(show.Stdout, "HEAD-OF-INSTRUCTIONS") ||
		!strings.Contains(show.Stdout, "instr: connected, 1 tools") {
		t.Errorf("prompt show (exit %d):\n%s\n%s", show.Code, show.Stdout, show.Stderr)
	}
	if none := x.Run("prompt", "show", "--no-mcp"); none.Code != 0 || strings.Contains(none.Stdout, "HEAD-OF-INSTRUCTIONS") {
		t.Errorf("prompt show --no-mcp started the server:\n%s", none.Stdout)
	}
}

// A project server that is not approved never starts, so it says nothing
// to the model.
func TestMCPInstructionsUnapprovedProjectServer(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	writeJSONFile(t, filepath.Join(x.Work, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"instr": instrServer(t, "PROJECT-SERVER-INSTRUCTIONS")}})
	r := x.RunDetached(streamArgs("hello")...)
	mustSucceed(t, r)
	if sys := reqSystem(x.lastMain()); strings.Contains(sys, "PROJECT-SERVER-INSTRUCTIONS") || strings.Contains(sys, "MCP Server Instructions") {
		t.Errorf("an unapproved server's instructions reached the model:\n%s", sys)
	}
	if show := x.Run("prompt", "show"); strings.Contains(show.Stdout, "PROJECT-SERVER-INSTRUCTIONS") {
		t.Errorf("prompt show started an unapproved server:\n%s", show.Stdout)
	}
}
