package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sort"

	"github.com/tandem-agent/tandem/bench/cachecost"
	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// promptSize is what tandem sends before any conversation: the system
// prompt and each tool definition, in estimated tokens; and what the whole
// session's input costs with the prompt cache.
type promptSize struct {
	system int64
	tools  []toolSize
	// requests is how many model requests the session made; cacheUnits
	// their cache-weighted input (bench/cachecost), in token units.
	requests   int
	cacheUnits float64
	// families is the first request's size per prompt family, from
	// `tandem prompt show`.
	families  []familySize
	familyErr error
}

type toolSize struct {
	name   string
	tokens int64
}

type familySize struct {
	family, model  string
	system, tools  int64
	offered, total int
}

func (p promptSize) total() int64 {
	n := p.system
	for _, t := range p.tools {
		n += t.tokens
	}
	return n
}

// measurePrompt runs the whole session against an in-process scripted
// server that records requests, sizes the first request's system prompt
// and tools as sent on the wire, and weighs every request's input with
// the prompt cache modelled (bench/cachecost).
func measurePrompt(ctx context.Context, bin, work, home string, calls []stepCalls) (promptSize, error) {
	srv := scripted.New(sessionScript(calls))
	url, err := srv.Start()
	if err != nil {
		return promptSize{}, fmt.Errorf("start scripted server: %w", err)
	}
	defer srv.Close()
	if _, err := runSession(ctx, bin, work, home, url, len(calls)+1); err != nil {
		return promptSize{}, err
	}
	reqs := srv.MainRequests()
	if len(reqs) == 0 {
		return promptSize{}, fmt.Errorf("the scripted server saw no model request")
	}
	p, err := sizePrompt(reqs[0].RawBody)
	if err != nil {
		return p, err
	}
	var bodies []map[string]any
	var sizes []int64
	for _, r := range reqs {
		bodies = append(bodies, r.Body)
		sizes = append(sizes, int64(len(r.RawBody)/4))
	}
	p.requests, p.cacheUnits = len(reqs), cachecost.Session(bodies, sizes)
	if p.families, err = familySizes(ctx, bin, work, home); err != nil {
		// A binary from before `tandem prompt show` still gets its session
		// measured (-tandem, to compare with an older build).
		p.familyErr = err
	}
	return p, nil
}

// familyModels is one model per prompt family (internal/prompt.Families).
var familyModels = [][2]string{{"claude", "anthropic/claude-sonnet-5-5"}, {"gpt", "openai/gpt-5"},
	{"gemini", "google/gemini-2.5-pro"}, {"open", "ollama/qwen3-coder:30b"}}

// familySizes asks `tandem prompt show` for the first request of the
// bench's session (trust mode, nobody to ask) with each family's model.
func familySizes(ctx context.Context, bin, work, home string) ([]familySize, error) {
	var out []familySize
	for _, fm := range familyModels {
		cmd := exec.CommandContext(ctx, bin, "prompt", "show", "--json", "--model", fm[1], "--mode", "trust", "--headless")
		cmd.Dir = work
		cmd.Env = tandemEnv(home, "http://127.0.0.1:1")
		raw, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("tandem prompt show --model %s: %w", fm[1], err)
		}
		var v struct {
			SystemTokens int64             `json:"system_tokens"`
			ToolTokens   int64             `json:"tool_tokens"`
			Tools        []json.RawMessage `json:"tools"`
			NotOffered   []json.RawMessage `json:"not_offered"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("decode tandem prompt show --json: %w", err)
		}
		out = append(out, familySize{family: fm[0], model: fm[1], system: v.SystemTokens, tools: v.ToolTokens,
			offered: len(v.Tools), total: len(v.Tools) + len(v.NotOffered)})
	}
	return out, nil
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
	fmt.Fprintf(w, "cache-weighted input of the session's %d requests (written x%.2f, read x%.1f): %.1fk token units\n",
		p.requests, cachecost.WriteWeight, cachecost.ReadWeight, p.cacheUnits/1000)
	if p.familyErr != nil {
		fmt.Fprintf(w, "first request per prompt family: not measured (%v)\n", p.familyErr)
		return
	}
	fmt.Fprintln(w, "first request per prompt family (tandem prompt show, trust mode, nobody to ask):")
	for _, f := range p.families {
		fmt.Fprintf(w, "  %-7s %-30s system %5d + %2d of %2d tools %5d = %5d\n", f.family, f.model, f.system, f.offered, f.total, f.tools, f.system+f.tools)
	}
}
