package openai

import (
	"encoding/json"
	"strings"

	"charm.land/fantasy"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// accumulator folds fantasy stream parts into a Response, forwarding
// deltas for live display. Blocks keep the order in which they started.
type accumulator struct {
	provider string
	onDelta  func(provider.Delta)
	blocks   []message.Block
	open     map[string]int // stream part ID -> index in blocks (text, reasoning, tool)
	textBuf  map[int]*strings.Builder
	finished bool
	usage    fantasy.Usage
	finish   fantasy.FinishReason
}

func newAccumulator(name string, onDelta func(provider.Delta)) *accumulator {
	if onDelta == nil {
		onDelta = func(provider.Delta) {}
	}
	return &accumulator{
		provider: name,
		onDelta:  onDelta,
		open:     map[string]int{},
		textBuf:  map[int]*strings.Builder{},
	}
}

func (a *accumulator) start(key string, b message.Block) int {
	a.blocks = append(a.blocks, b)
	i := len(a.blocks) - 1
	a.open[key] = i
	a.textBuf[i] = &strings.Builder{}
	return i
}

// index returns the open block for key (keys carry the block kind), starting
// one of type t if none is.
func (a *accumulator) index(key string, t message.BlockType) int {
	if i, ok := a.open[key]; ok {
		return i
	}
	b := message.Block{Type: t}
	if t == message.Thinking {
		b.Provider = a.provider
	}
	return a.start(key, b)
}

func (a *accumulator) add(p fantasy.StreamPart) {
	switch p.Type {
	case fantasy.StreamPartTypeTextStart:
		a.start("text:"+p.ID, message.Block{Type: message.Text})
	case fantasy.StreamPartTypeTextDelta:
		i := a.index("text:"+p.ID, message.Text)
		a.textBuf[i].WriteString(p.Delta)
		if p.Delta != "" {
			a.onDelta(provider.Delta{Kind: provider.DeltaText, Text: p.Delta})
		}
	case fantasy.StreamPartTypeReasoningStart:
		a.start("reasoning:"+p.ID, message.Block{Type: message.Thinking, Provider: a.provider})
	case fantasy.StreamPartTypeReasoningDelta:
		i := a.index("reasoning:"+p.ID, message.Thinking)
		a.textBuf[i].WriteString(p.Delta)
		if p.Delta != "" {
			a.onDelta(provider.Delta{Kind: provider.DeltaThinking, Text: p.Delta})
		}
	case fantasy.StreamPartTypeReasoningEnd:
		a.index("reasoning:"+p.ID, message.Thinking)
	case fantasy.StreamPartTypeToolInputStart:
		if p.ProviderExecuted {
			return
		}
		a.start("tool:"+p.ID, message.Block{Type: message.ToolUse, ID: p.ID, Name: p.ToolCallName})
		a.onDelta(provider.Delta{Kind: provider.DeltaToolStart, ToolID: p.ID, ToolName: p.ToolCallName})
	case fantasy.StreamPartTypeToolCall:
		if p.ProviderExecuted {
			return
		}
		i, ok := a.open["tool:"+p.ID]
		if !ok {
			i = a.start("tool:"+p.ID, message.Block{Type: message.ToolUse, ID: p.ID})
		}
		a.blocks[i].Name = p.ToolCallName
		a.blocks[i].Input = provider.ToolInput(p.ToolCallInput)
	case fantasy.StreamPartTypeFinish:
		a.finished = true
		a.usage = p.Usage
		a.finish = p.FinishReason
	}
}

func (a *accumulator) response(model string) *provider.Response {
	var content []message.Block
	hasTool := false
	for i, b := range a.blocks {
		switch b.Type {
		case message.Text:
			b.Text = a.textBuf[i].String()
			if b.Text == "" {
				continue
			}
		case message.Thinking:
			b.Text = a.textBuf[i].String()
			if b.Text == "" && b.Signature == "" {
				continue
			}
		case message.ToolUse:
			hasTool = true
			if b.Input == nil {
				b.Input = json.RawMessage("{}")
			}
		}
		content = append(content, b)
	}
	return &provider.Response{
		Content:    content,
		Usage:      usage(a.usage),
		StopReason: stopReason(a.finish, hasTool),
		Model:      model,
	}
}

func usage(u fantasy.Usage) message.Usage {
	return message.Usage{
		InputTokens:         u.InputTokens,
		OutputTokens:        u.OutputTokens,
		CacheReadTokens:     u.CacheReadTokens,
		CacheCreationTokens: u.CacheCreationTokens,
		ReasoningTokens:     u.ReasoningTokens,
	}
}

// stopReason maps fantasy's finish reason back to Anthropic's vocabulary,
// which is what the rest of tandem speaks.
func stopReason(f fantasy.FinishReason, hasTool bool) string {
	if hasTool {
		return "tool_use"
	}
	switch f {
	case fantasy.FinishReasonStop:
		return "end_turn"
	case fantasy.FinishReasonLength:
		return "max_tokens"
	case fantasy.FinishReasonToolCalls:
		return "tool_use"
	case fantasy.FinishReasonContentFilter:
		return "refusal"
	case fantasy.FinishReasonError:
		return "error"
	default:
		return "unknown"
	}
}
