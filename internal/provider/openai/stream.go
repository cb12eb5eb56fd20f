package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// chatChunk is one streamed chunk. The reasoning fields stay raw: a server
// that sends the field at all (even empty or null) is reasoning.
type chatChunk struct {
	Choices []struct {
		Delta struct {
			Content          string          `json:"content"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ToolCalls        []struct {
				Index    *int64 `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// toolCall is a streamed tool call being put together.
type toolCall struct {
	block int // index in blocks
	id    string
	name  string
	args  strings.Builder
}

// accumulator folds chunks into a Response, forwarding deltas for live
// display. Blocks keep the order in which they started. Text continues one
// block until a tool call comes; reasoning continues one block until text
// or a tool call comes.
type accumulator struct {
	provider  string
	reasons   bool // read reasoning fields (OpenAI-compatible servers)
	onDelta   func(provider.Delta)
	blocks    []message.Block
	text      []*strings.Builder // each block's text (unused for tool calls)
	openText  int                // block of the current text, -1 when none
	openThink int                // block of the current reasoning, -1 when none
	calls     map[int64]*toolCall
	lastCall  int64
	finish    string
	usage     message.Usage
}

func newAccumulator(name, kind string, onDelta func(provider.Delta)) *accumulator {
	if onDelta == nil {
		onDelta = func(provider.Delta) {}
	}
	return &accumulator{provider: name, reasons: kind == provider.KindOpenAICompatible, onDelta: onDelta,
		openText: -1, openThink: -1, calls: map[int64]*toolCall{}, lastCall: -1}
}

func (a *accumulator) start(b message.Block) int {
	a.blocks = append(a.blocks, b)
	a.text = append(a.text, &strings.Builder{})
	return len(a.blocks) - 1
}

// add folds in the data of one event.
func (a *accumulator) add(data []byte) error {
	var ch chatChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("decode chunk: %w", err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return streamError(a.provider, data, ch.Error)
	}
	if u := ch.Usage; u != nil && (u.TotalTokens != 0 || u.PromptTokens != 0 || u.CompletionTokens != 0) {
		cached := u.PromptTokensDetails.CachedTokens
		// OpenAI counts cached tokens inside prompt_tokens; tandem's
		// InputTokens excludes them (Anthropic's convention).
		a.usage = message.Usage{InputTokens: max(u.PromptTokens-cached, 0), OutputTokens: u.CompletionTokens,
			CacheReadTokens: cached, ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens}
	}
	for _, c := range ch.Choices {
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
		d := c.Delta
		if d.Content != "" {
			if a.openText < 0 {
				a.openText = a.start(message.Block{Type: message.Text})
			}
			a.text[a.openText].WriteString(d.Content)
			a.onDelta(provider.Delta{Kind: provider.DeltaText, Text: d.Content})
		}
		if len(d.ToolCalls) > 0 {
			a.openText = -1
		}
		for _, tc := range d.ToolCalls {
			if err := a.toolDelta(tc.Index, tc.ID, tc.Type, tc.Function.Name, tc.Function.Arguments); err != nil {
				return err
			}
		}
		if !a.reasons {
			continue
		}
		if text, ok := reasoningText(d.ReasoningContent, d.Reasoning); ok {
			if a.openThink < 0 {
				a.openThink = a.start(message.Block{Type: message.Thinking, Provider: a.provider})
			}
			a.text[a.openThink].WriteString(text)
			if text != "" {
				a.onDelta(provider.Delta{Kind: provider.DeltaThinking, Text: text})
			}
		} else if d.Content != "" || len(d.ToolCalls) > 0 {
			a.openThink = -1
		}
	}
	return nil
}

// reasoningText reads reasoning_content (Avian, DeepSeek, llama.cpp) or
// reasoning (Moonshot/Kimi, OpenRouter); ok when either field is there.
func reasoningText(content, reasoning json.RawMessage) (string, bool) {
	if len(content) == 0 && len(reasoning) == 0 {
		return "", false
	}
	var a, b string
	_ = json.Unmarshal(content, &a)
	_ = json.Unmarshal(reasoning, &b)
	if a != "" {
		return a, true
	}
	return b, true
}

// toolDelta adds a fragment of a tool call. Calls are told apart by index;
// a server that leaves the index out gets one call per id. A first
// fragment with neither name nor arguments is skipped (Ollama sends
// empty ones).
func (a *accumulator) toolDelta(index *int64, id, typ, name, args string) error {
	i := a.lastCall
	switch {
	case index != nil:
		i = *index
	case i < 0 || (id != "" && a.calls[i].id != id):
		i++
	}
	tc, ok := a.calls[i]
	if !ok {
		if name == "" && args == "" {
			return nil
		}
		if typ != "" && typ != "function" {
			return &provider.Error{Provider: a.provider, Message: fmt.Sprintf("invalid provider response: tool call of type %q, expected \"function\"", typ)}
		}
		if id == "" {
			id = fmt.Sprintf("tool-call-%d", i)
		}
		tc = &toolCall{id: id, name: name, block: a.start(message.Block{Type: message.ToolUse, ID: id, Name: name})}
		a.calls[i] = tc
		a.onDelta(provider.Delta{Kind: provider.DeltaToolStart, ToolID: id, ToolName: name})
	}
	a.lastCall = max(a.lastCall, i)
	tc.args.WriteString(args)
	return nil
}

// complete reports whether the stream said how it ended. A stream that
// stopped after tool calls without a finish_reason still counts, as some
// servers end tool-call turns that way.
func (a *accumulator) complete() bool { return a.finish != "" || len(a.calls) > 0 }

func (a *accumulator) response(model string) *provider.Response {
	for _, tc := range a.calls {
		a.blocks[tc.block].Input = provider.ToolInput(tc.args.String())
	}
	var content []message.Block
	for i, b := range a.blocks {
		if b.Type != message.ToolUse {
			b.Text = a.text[i].String()
			if b.Text == "" {
				continue
			}
		}
		content = append(content, b)
	}
	return &provider.Response{Content: content, Usage: a.usage, StopReason: stopReason(a.finish, len(a.calls) > 0), Model: model}
}

// stopReason maps finish_reason to Anthropic's vocabulary, which is what
// the rest of tandem speaks.
func stopReason(finish string, hasTool bool) string {
	if hasTool {
		return "tool_use"
	}
	switch finish {
	case "stop":
		return "end_turn"
	case "length":
		return "max_tokens"
	case "tool_calls", "function_call":
		return "tool_use"
	case "content_filter":
		return "refusal"
	default:
		return "unknown"
	}
}
