package provider

import (
	"encoding/json"
	"fmt"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/anthropic"
	"charm.land/fantasy/providers/openai"
	"charm.land/fantasy/providers/openaicompat"
)

// call builds the fantasy call for req.
func (b promptBuilder) call(req Request) (fantasy.Call, error) {
	prompt, err := b.prompt(req.System, req.Messages)
	if err != nil {
		return fantasy.Call{}, err
	}
	tools, err := functionTools(req.Tools)
	if err != nil {
		return fantasy.Call{}, err
	}
	c := fantasy.Call{Prompt: prompt, Tools: tools, Headers: req.Headers}
	if len(tools) > 0 {
		auto := fantasy.ToolChoiceAuto
		c.ToolChoice = &auto
	}
	if req.MaxTokens > 0 {
		mt := req.MaxTokens
		c.MaxOutputTokens = &mt
	}
	switch b.kind {
	case KindAnthropic:
		opts, err := anthropicOptions(req)
		if err != nil {
			return fantasy.Call{}, err
		}
		c.ProviderOptions = anthropic.NewProviderOptions(opts)
		if opts.Thinking != nil && (c.MaxOutputTokens == nil || *c.MaxOutputTokens <= opts.Thinking.BudgetTokens) {
			// Anthropic requires max_tokens > budget_tokens.
			mt := opts.Thinking.BudgetTokens + 4096
			c.MaxOutputTokens = &mt
		}
	case KindOpenAI:
		if req.Effort != "" {
			e := openai.ReasoningEffort(req.Effort)
			c.ProviderOptions = fantasy.ProviderOptions{
				openai.Name: &openai.ProviderOptions{ReasoningEffort: &e},
			}
		}
	case KindOpenAICompatible:
		if req.Effort != "" {
			e := openai.ReasoningEffort(req.Effort)
			c.ProviderOptions = fantasy.ProviderOptions{
				openaicompat.Name: &openaicompat.ProviderOptions{ReasoningEffort: &e},
			}
		}
	}
	return c, nil
}

// anthropicOptions sets extended thinking, effort and the full tool list.
// Tools go in through ExtraBody, which fantasy applies after its own tool
// encoding: fantasy keeps only "properties" and "required" of a schema,
// while MCP tools need the rest ($defs, enums at the top, ...), and the
// last tool needs a cache_control breakpoint.
func anthropicOptions(req Request) (*anthropic.ProviderOptions, error) {
	opts := &anthropic.ProviderOptions{}
	if req.ThinkingBudget > 0 {
		opts.Thinking = &anthropic.ThinkingProviderOption{BudgetTokens: req.ThinkingBudget}
	}
	extra := map[string]any{}
	if req.Effort != "" {
		// Set directly: fantasy's Effort option also switches thinking to
		// "adaptive", which older models reject.
		extra["output_config"] = map[string]any{"effort": req.Effort}
	}
	if len(req.Tools) > 0 {
		raw, err := anthropicTools(req.Tools)
		if err != nil {
			return nil, err
		}
		extra["tools"] = raw
	}
	if len(extra) > 0 {
		opts.ExtraBody = extra
	}
	return opts, nil
}

type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheCtl       `json:"cache_control,omitempty"`
}

type cacheCtl struct {
	Type string `json:"type"`
}

func anthropicTools(specs []ToolSpec) ([]anthropicTool, error) {
	out := make([]anthropicTool, len(specs))
	for i, s := range specs {
		schema, err := objectSchema(s)
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: encode schema: %w", s.Name, err)
		}
		out[i] = anthropicTool{Name: s.Name, Description: s.Description, InputSchema: raw}
	}
	out[len(out)-1].CacheControl = &cacheCtl{Type: "ephemeral"}
	return out, nil
}

// objectSchema decodes a tool's JSON schema, defaulting to an empty object.
func objectSchema(s ToolSpec) (map[string]any, error) {
	schema := map[string]any{}
	if len(s.InputSchema) > 0 && string(s.InputSchema) != "null" {
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("tool %s: input schema is not a JSON object: %w", s.Name, err)
		}
	}
	if _, ok := schema["type"]; !ok {
		schema["type"] = "object"
	}
	if _, ok := schema["properties"]; !ok {
		schema["properties"] = map[string]any{}
	}
	return schema, nil
}

func functionTools(specs []ToolSpec) ([]fantasy.Tool, error) {
	var out []fantasy.Tool
	for _, s := range specs {
		if s.Name == "" {
			return nil, fmt.Errorf("tool with empty name")
		}
		schema, err := objectSchema(s)
		if err != nil {
			return nil, err
		}
		// fantasy's Anthropic encoder only reads []string here.
		if req, ok := schema["required"].([]any); ok {
			names := make([]string, 0, len(req))
			for _, r := range req {
				if n, ok := r.(string); ok {
					names = append(names, n)
				}
			}
			schema["required"] = names
		}
		out = append(out, fantasy.FunctionTool{Name: s.Name, Description: s.Description, InputSchema: schema})
	}
	return out, nil
}
