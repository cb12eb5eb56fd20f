package provider

import (
	"encoding/json"
	"fmt"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/openai"
	"charm.land/fantasy/providers/openaicompat"
)

// call builds the fantasy call for req; tools come converted from tools.
func (b promptBuilder) call(req Request, tools []fantasy.Tool) (fantasy.Call, error) {
	prompt, err := b.prompt(req.System, req.Messages)
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
	if req.Effort != "" {
		e := openai.ReasoningEffort(req.Effort)
		switch b.kind {
		case KindOpenAI:
			c.ProviderOptions = fantasy.ProviderOptions{
				openai.Name: &openai.ProviderOptions{ReasoningEffort: &e},
			}
		case KindOpenAICompatible:
			c.ProviderOptions = fantasy.ProviderOptions{
				openaicompat.Name: &openaicompat.ProviderOptions{ReasoningEffort: &e},
			}
		}
	}
	return c, nil
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

// functionTools converts tool specs for fantasy. Adapters keep the result in
// a toolCache: fantasy only reads it.
func functionTools(specs []ToolSpec) ([]fantasy.Tool, error) {
	out := make([]fantasy.Tool, 0, len(specs))
	for _, s := range specs {
		if s.Name == "" {
			return nil, fmt.Errorf("tool with empty name")
		}
		schema, err := objectSchema(s)
		if err != nil {
			return nil, err
		}
		out = append(out, fantasy.FunctionTool{Name: s.Name, Description: s.Description, InputSchema: schema})
	}
	return out, nil
}
