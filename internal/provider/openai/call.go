package openai

import (
	"fmt"

	"charm.land/fantasy"
	fantasyopenai "charm.land/fantasy/providers/openai"
	"charm.land/fantasy/providers/openaicompat"

	"github.com/tandem-agent/tandem/internal/provider"
)

// call builds the fantasy call for req; tools come converted from tools.
func (b promptBuilder) call(req provider.Request, tools []fantasy.Tool) (fantasy.Call, error) {
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
		e := fantasyopenai.ReasoningEffort(req.Effort)
		switch b.kind {
		case provider.KindOpenAI:
			c.ProviderOptions = fantasy.ProviderOptions{
				fantasyopenai.Name: &fantasyopenai.ProviderOptions{ReasoningEffort: &e},
			}
		case provider.KindOpenAICompatible:
			c.ProviderOptions = fantasy.ProviderOptions{
				openaicompat.Name: &openaicompat.ProviderOptions{ReasoningEffort: &e},
			}
		}
	}
	if b.nativeOutput(req) {
		f, err := newOutputFormat(req.OutputSchema)
		if err != nil {
			return fantasy.Call{}, err
		}
		if f != nil && c.ProviderOptions == nil {
			c.ProviderOptions = fantasy.ProviderOptions{}
		}
		if f != nil {
			c.ProviderOptions[outputFormatKey] = f
		}
	}
	return c, nil
}

// nativeOutput reports whether req's schema goes out as response_format:
// always for OpenAI itself, and for an OpenAI-compatible server only when
// its model is known to take it (many local servers reject the field).
// response_format leaves tool calls free, so tools need no special case.
func (b promptBuilder) nativeOutput(req provider.Request) bool {
	return len(req.OutputSchema) > 0 && (b.kind == provider.KindOpenAI || req.NativeOutput)
}

// functionTools converts tool specs for fantasy. Adapters keep the result in
// a provider.ToolCache: fantasy only reads it.
func functionTools(specs []provider.ToolSpec) ([]fantasy.Tool, error) {
	out := make([]fantasy.Tool, 0, len(specs))
	for _, s := range specs {
		if s.Name == "" {
			return nil, fmt.Errorf("tool with empty name")
		}
		schema, err := provider.ObjectSchema(s)
		if err != nil {
			return nil, err
		}
		out = append(out, fantasy.FunctionTool{Name: s.Name, Description: s.Description, InputSchema: schema})
	}
	return out, nil
}
