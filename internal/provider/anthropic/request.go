package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/tandem-agent/tandem/internal/provider"
)

// defaultMaxTokens is sent when the request sets no limit; the Messages API
// requires one.
const defaultMaxTokens = 4096

// params builds the Messages API request for req. Cache breakpoints sit on
// the last system block, the last tool and the last message, so each call
// reuses the prefix the previous one wrote.
// The messages and tools, the bulk of every request, are not in the params:
// they are spliced into the body pre-encoded (see body), because the SDK
// re-validates and compacts pre-encoded JSON on every call, which was the
// largest part of tandem's own CPU per step.
func (a *anthropicAdapter) params(req provider.Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: defaultMaxTokens,
		System:    anthropicSystem(req.System),
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = req.MaxTokens
	}
	if len(req.Tools) > 0 {
		p.ToolChoice = anthropic.ToolChoiceUnionParam{
			OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: param.NewOpt(false)},
		}
	}
	if a.compat != nil {
		a.compat.shape(&p, req.Messages)
	}
	setThinking(&p, req)
	if req.Effort != "" {
		// Effort alone, as output_config.effort: it does not switch thinking
		// to adaptive, which older models reject.
		p.OutputConfig.Effort = anthropic.OutputConfigEffort(req.Effort)
	}
	if err := a.setOutputFormat(&p, req); err != nil {
		return p, err
	}
	return p, nil
}

// setOutputFormat sends the --json-schema as output_config.format for
// models that take it (req.NativeOutput). It constrains the text answer
// and leaves tool calls free, so it goes on every call of the turn. The
// SDK's transform closes objects and moves keywords the API refuses into
// descriptions; tandem still validates against the schema as given. The
// claude-code-compat transport keeps Claude Code's request shape, which
// has no output_config.format.
func (a *anthropicAdapter) setOutputFormat(p *anthropic.MessageNewParams, req provider.Request) error {
	if !req.NativeOutput || len(req.OutputSchema) == 0 || a.compat != nil {
		return nil
	}
	var schema map[string]any
	if err := json.Unmarshal(req.OutputSchema, &schema); err != nil {
		return fmt.Errorf("--json-schema: output_config.format needs a JSON object schema: %w", err)
	}
	if schema["type"] != "object" {
		return nil // output_config.format takes object schemas only: the prompt asks
	}
	// The transform answers nil for a schema it cannot read; the answer is
	// then asked for through the prompt alone.
	if sent, ok := anthropic.BetaJSONSchemaOutputFormat(schema).Schema.(map[string]any); ok && sent != nil {
		p.OutputConfig.Format = anthropic.JSONOutputFormatParam{Schema: sent}
	}
	return nil
}

// setThinking turns on extended thinking. Models that only take adaptive
// thinking (or deprecate the budgeted form) get adaptive thinking instead.
func setThinking(p *anthropic.MessageNewParams, req provider.Request) {
	model := strings.ToLower(strings.TrimSpace(req.Model))
	adaptive := req.ThinkingMode == "adaptive" || req.ThinkingMode == "always"
	switch {
	case req.ThinkingBudget > 0 && adaptive:
		// The catalog's adaptive models (Claude 5 and later) reject a budget
		// and omit the thinking text unless a display is asked for.
		p.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{Display: anthropic.ThinkingConfigAdaptiveDisplaySummarized}}
		return
	case req.ThinkingBudget > 0 && adaptiveOnly(model):
		p.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: adaptiveThinking(model)}
	case req.ThinkingBudget > 0:
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(req.ThinkingBudget)
	case strings.Contains(model, "claude-mythos-preview"):
		// This model thinks adaptively by default; saying so keeps the
		// summarized display.
		p.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: adaptiveThinking(model)}
		return
	default:
		return
	}
	// Anthropic requires max_tokens > budget_tokens.
	if p.MaxTokens <= req.ThinkingBudget {
		p.MaxTokens = req.ThinkingBudget + defaultMaxTokens
	}
}

func adaptiveThinking(model string) *anthropic.ThinkingConfigAdaptiveParam {
	t := &anthropic.ThinkingConfigAdaptiveParam{}
	if summarizedByRequest(model) {
		// These models omit the thinking text unless asked.
		t.Display = anthropic.ThinkingConfigAdaptiveDisplaySummarized
	}
	return t
}

// adaptiveOnly: Claude Mythos and Opus 4.6 and later take adaptive thinking
// (Opus 4.6 deprecates the budgeted form).
func adaptiveOnly(model string) bool {
	return strings.Contains(model, "claude-mythos-preview") || opusMinor(model) >= 6
}

// summarizedByRequest: Claude Mythos and Opus 4.7 and later omit thinking
// text by default.
func summarizedByRequest(model string) bool {
	return strings.Contains(model, "claude-mythos-preview") || opusMinor(model) >= 7
}

// opusMinor returns N of "claude-opus-4-N", or -1.
func opusMinor(model string) int {
	_, suffix, ok := strings.Cut(model, "claude-opus-4-")
	if !ok {
		return -1
	}
	end := 0
	for end < len(suffix) && end < 3 && suffix[end] >= '0' && suffix[end] <= '9' {
		end++
	}
	// Eight digits are a date (claude-opus-4-20250514), not a minor version.
	if end == 0 || end > 2 {
		return -1
	}
	n, err := strconv.Atoi(suffix[:end])
	if err != nil {
		return -1
	}
	return n
}

func anthropicSystem(system []string) []anthropic.TextBlockParam {
	var out []anthropic.TextBlockParam
	for _, s := range system {
		if strings.TrimSpace(s) != "" {
			out = append(out, anthropic.TextBlockParam{Text: s})
		}
	}
	if len(out) > 0 {
		out[len(out)-1].CacheControl = anthropic.NewCacheControlEphemeralParam()
	}
	return out
}

// anthropicTool is a tool's wire form. The schema is sent whole: MCP tools
// rely on $defs, top-level enums and the like.
type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheCtl       `json:"cache_control,omitempty"`
}

type cacheCtl struct {
	Type string `json:"type"`
}

// body encodes the whole request: the params' small fields, then the
// pre-encoded messages and tools. "stream" comes first so that the SDK's
// own setting of it finds the key at once instead of scanning the body.
func (a *anthropicAdapter) body(p anthropic.MessageNewParams, req provider.Request) ([]byte, error) {
	head, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	msgs, err := a.anthropicMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	var tools []byte
	if len(req.Tools) > 0 {
		if tools, err = a.tools.Get(req.Tools, anthropicTools); err != nil {
			return nil, err
		}
	}
	tools = withServerTools(tools, req.ServerTools)
	size := len(head) + len(tools) + 64
	for _, m := range msgs {
		size += len(m) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"stream":true,`...)
	if inner := bytes.TrimSpace(head[1 : len(head)-1]); len(inner) > 0 {
		b = append(append(b, inner...), ',')
	}
	b = append(b, `"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	b = append(b, ']')
	if tools != nil {
		b = append(append(b, `,"tools":`...), tools...)
	}
	return append(b, '}'), nil
}

// withServerTools appends provider-executed tools to the encoded tool
// array (which stays cached without them).
func withServerTools(tools []byte, server []json.RawMessage) []byte {
	if len(server) == 0 {
		return tools
	}
	out := []byte{'['}
	if len(tools) > 2 {
		out = append(out, tools[1:len(tools)-1]...)
		out = append(out, ',')
	}
	for i, t := range server {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, bytes.TrimSpace(t)...)
	}
	return append(out, ']')
}

// anthropicTools encodes the tool list once per tool set (see provider.ToolCache)
// as the JSON array sent in the body.
func anthropicTools(specs []provider.ToolSpec) ([]byte, error) {
	out := make([]json.RawMessage, len(specs))
	for i, s := range specs {
		if s.Name == "" {
			return nil, fmt.Errorf("tool with empty name")
		}
		schema, err := provider.ObjectSchemaJSON(s)
		if err != nil {
			return nil, err
		}
		t := anthropicTool{Name: s.Name, Description: s.Description, InputSchema: schema}
		if i == len(specs)-1 {
			t.CacheControl = &cacheCtl{Type: "ephemeral"}
		}
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: encode: %w", s.Name, err)
		}
		out[i] = raw
	}
	return json.Marshal(out)
}
