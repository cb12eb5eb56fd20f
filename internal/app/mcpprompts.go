package app

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/mcp"
)

// liveMCP is the session's MCP manager when tandem runs the servers (under
// the claude-code runtime the CLI runs them and expands their prompts and
// mentions itself).
func (eq *Equipment) liveMCP() *mcp.Manager {
	if eq.mcp == nil || !eq.mcpStarted.Load() {
		return nil
	}
	return eq.mcp
}

// expandMCPPrompt runs `/mcp__server__prompt args` (a server's prompt as a
// slash command, as Claude Code has them). A failure is reported as an
// error status and the prompt goes as typed.
func (eq *Equipment) expandMCPPrompt(ctx context.Context, prompt string) (string, bool) {
	m := eq.liveMCP()
	if m == nil {
		return "", false
	}
	text, ok, err := m.ExpandPromptCommand(ctx, prompt)
	if !ok {
		return "", false
	}
	if err != nil {
		eq.l.Events().Emit(event.Event{Type: event.Status, Message: fmt.Sprintf("mcp prompt: %v", err), Meta: map[string]any{"error": err.Error()}})
		return prompt, true
	}
	return text, true
}

// expandMCPMentions appends the resources `@server:uri` mentions name.
func (eq *Equipment) expandMCPMentions(ctx context.Context, prompt string) string {
	m := eq.liveMCP()
	if m == nil {
		return prompt
	}
	out, errs := m.ExpandResourceMentions(ctx, prompt)
	for _, err := range errs {
		eq.l.Events().Emit(event.Event{Type: event.Status, Message: fmt.Sprintf("mcp resource mention: %v", err), Meta: map[string]any{"error": err.Error()}})
	}
	return out
}

// mcpPromptCommands lists the servers' prompts as slash commands.
func (eq *Equipment) mcpPromptCommands() []SlashCommand {
	m := eq.liveMCP()
	if m == nil {
		return nil
	}
	var out []SlashCommand
	for _, p := range m.Prompts() {
		hint := ""
		for _, a := range p.Arguments {
			hint += " " + a.Name
		}
		desc := p.Description
		if desc == "" {
			desc = p.Title
		}
		out = append(out, SlashCommand{Name: mcp.PromptCommand(p.Server, p.Name), Description: desc + " (MCP prompt of " + p.Server + ")", ArgumentHint: trimSpace(hint)})
	}
	return out
}

func trimSpace(s string) string {
	if len(s) > 0 && s[0] == ' ' {
		return s[1:]
	}
	return s
}
