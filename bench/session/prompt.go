package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// promptSize is what tandem sends before any conversation: the system
// prompt and each tool definition, in estimated tokens.
type promptSize struct {
	system int64
	tools  []toolSize
}

type toolSize struct {
	name   string
	tokens int64
}

func (p promptSize) total() int64 {
	n := p.system
	for _, t := range p.tools {
		n += t.tokens
	}
	return n
}

// measurePrompt runs one text-only session against an in-process scripted
// server that records requests, and sizes the first request's system
// prompt and tools as sent on the wire.
func measurePrompt(ctx context.Context, bin, work, home string) (promptSize, error) {
	srv := scripted.New(sessionScript(nil))
	url, err := srv.Start()
	if err != nil {
		return promptSize{}, fmt.Errorf("start scripted server: %w", err)
	}
	defer srv.Close()
	if _, err := runSession(ctx, bin, work, home, url, 1); err != nil {
		return promptSize{}, err
	}
	reqs := srv.MainRequests()
	if len(reqs) == 0 {
		return promptSize{}, fmt.Errorf("the scripted server saw no model request")
	}
	return sizePrompt(reqs[0].RawBody)
}

// sizePrompt reads an Anthropic Messages request body. Tokens are
// compact's estimate (characters / 4, compact.Tokens and ToolTokens), the
// one behind tandem's context accounting, applied to the bytes sent.
func sizePrompt(body []byte) (promptSize, error) {
	var req struct {
		System json.RawMessage   `json:"system"`
		Tools  []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return promptSize{}, fmt.Errorf("decode the model request: %w", err)
	}
	var p promptSize
	var blocks []struct {
		Text string `json:"text"`
	}
	var text string
	switch {
	case len(req.System) == 0:
	case json.Unmarshal(req.System, &blocks) == nil:
		for _, b := range blocks {
			p.system += compact.Tokens(b.Text)
		}
	case json.Unmarshal(req.System, &text) == nil:
		p.system = compact.Tokens(text)
	default:
		return promptSize{}, fmt.Errorf("the request's system field is neither text nor blocks")
	}
	for _, raw := range req.Tools {
		var t struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			Type        string          `json:"type"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return promptSize{}, fmt.Errorf("decode a tool of the model request: %w", err)
		}
		if t.Type != "" && t.InputSchema == nil {
			// A provider-executed tool: the object is its whole definition,
			// estimated as compact.RequestTokens does.
			p.tools = append(p.tools, toolSize{name: t.Name + " (" + t.Type + ")", tokens: compact.Tokens(string(raw))})
			continue
		}
		p.tools = append(p.tools, toolSize{name: t.Name, tokens: compact.ToolTokens(t.Name, t.Description, string(t.InputSchema))})
	}
	sort.Slice(p.tools, func(i, j int) bool { return p.tools[i].tokens > p.tools[j].tokens })
	return p, nil
}

func (p promptSize) print(w io.Writer) {
	fmt.Fprintf(w, "prompt sent before any conversation (tokens estimated as characters/4, tandem's context estimate): %d\n", p.total())
	fmt.Fprintf(w, "  %-28s %6d\n", "system prompt", p.system)
	for _, t := range p.tools {
		fmt.Fprintf(w, "  %-28s %6d\n", "tool "+t.name, t.tokens)
	}
}
