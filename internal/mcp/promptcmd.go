package mcp

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/message"
)

// PromptCommand is the slash command that runs a server's prompt:
// /mcp__<server>__<prompt> (Claude Code's form, sanitised as tool names).
func PromptCommand(server, prompt string) string { return ToolName(server, prompt) }

// ExpandPromptCommand turns `/mcp__server__prompt args` into the prompt's
// text, the arguments filling the prompt's arguments in order (the last
// takes the rest of the line, so a free-text argument keeps its spaces).
// ok is false when prompt is no MCP prompt command; err names a missing
// required argument or the server's failure.
func (m *Manager) ExpandPromptCommand(ctx context.Context, prompt string) (text string, ok bool, err error) {
	line := strings.TrimSpace(prompt)
	if !strings.HasPrefix(line, "/mcp__") {
		return "", false, nil
	}
	name, rest, _ := strings.Cut(line[1:], " ")
	var p *PromptInfo
	for _, pi := range m.Prompts() {
		if PromptCommand(pi.Server, pi.Name) == name {
			p = &pi
			break
		}
	}
	if p == nil {
		return "", false, nil
	}
	args := map[string]string{}
	words := strings.Fields(rest)
	for i, a := range p.Arguments {
		switch {
		case i >= len(words):
			if a.Required {
				return "", true, fmt.Errorf("/%s needs the argument %s (arguments: %s)", name, a.Name, argList(p.Arguments))
			}
		case i == len(p.Arguments)-1:
			args[a.Name] = strings.Join(words[i:], " ")
		default:
			args[a.Name] = words[i]
		}
	}
	res, err := m.GetPrompt(ctx, p.Server, p.Name, args)
	if err != nil {
		return "", true, err
	}
	var parts []string
	for _, msg := range res.Messages {
		for _, b := range msg.Content {
			if b.Type == message.Text && b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n"), true, nil
}

func argList(as []PromptArgument) string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return strings.Join(out, " ")
}

// mention matches @server:uri (a URI with a scheme after the server name).
var mention = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_-]+):([A-Za-z][A-Za-z0-9+.-]*:[^\s]+)`)
})

// maxMentionText caps one mentioned resource's text in the prompt.
const maxMentionText = 100_000

// ExpandResourceMentions appends the resources that `@server:uri` mentions
// name (Claude Code's form) to the prompt, each in a <resource> block; a
// mention of a name that is no configured server is left as text (an
// @file mention), one whose read fails is reported in errs.
func (m *Manager) ExpandResourceMentions(ctx context.Context, prompt string) (string, []error) {
	var blocks []string
	var errs []error
	seen := map[string]bool{}
	for _, sm := range mention().FindAllStringSubmatch(prompt, -1) {
		server, uri := sm[1], sm[2]
		if _, err := m.get(server); err != nil || seen[server+" "+uri] {
			continue
		}
		seen[server+" "+uri] = true
		contents, err := m.ReadResource(ctx, server, uri)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var text []string
		for _, c := range contents {
			switch {
			case c.Text != "":
				t := c.Text
				if len(t) > maxMentionText {
					t = t[:maxMentionText] + "\n[resource cut at 100,000 characters]"
				}
				text = append(text, t)
			case len(c.Blob) > 0:
				text = append(text, fmt.Sprintf("[binary resource %s, %d bytes]", c.MIMEType, len(c.Blob)))
			}
		}
		blocks = append(blocks, fmt.Sprintf("<resource server=%q uri=%q>\n%s\n</resource>", server, uri, strings.Join(text, "\n")))
	}
	if len(blocks) == 0 {
		return prompt, errs
	}
	return prompt + "\n\n" + strings.Join(blocks, "\n\n"), errs
}
