package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// anthropicAccumulator folds Messages API stream events into a Response,
// forwarding deltas for live display. Blocks keep the order in which they
// started.
type anthropicAccumulator struct {
	provider   string
	onDelta    func(provider.Delta)
	blocks     []*streamBlock
	byIndex    map[int64]*streamBlock
	usage      message.Usage
	stopReason string
	stopped    bool // message_stop seen
	sources    []provider.Source
	sourceAt   map[string]int // url -> index in sources
}

type streamBlock struct {
	blk   message.Block
	text  strings.Builder // text, or thinking text
	sig   strings.Builder
	input []byte // tool input: partial JSON deltas, or the start event's input
	delta bool   // input came from deltas
}

func newAnthropicAccumulator(name string, onDelta func(provider.Delta)) *anthropicAccumulator {
	if onDelta == nil {
		onDelta = func(provider.Delta) {}
	}
	return &anthropicAccumulator{provider: name, onDelta: onDelta, byIndex: map[int64]*streamBlock{}}
}

func (a *anthropicAccumulator) add(ev anthropic.MessageStreamEventUnion) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		a.usage = message.Usage{
			InputTokens:         u.InputTokens,
			OutputTokens:        u.OutputTokens,
			CacheReadTokens:     u.CacheReadInputTokens,
			CacheCreationTokens: u.CacheCreationInputTokens,
			ReasoningTokens:     u.OutputTokensDetails.ThinkingTokens,
		}
	case "content_block_start":
		a.start(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		a.delta(ev.Index, ev.Delta)
	case "message_delta":
		a.stopReason = string(ev.Delta.StopReason)
		a.messageUsage(ev.Usage)
	case "message_stop":
		a.stopped = true
	}
}

// messageUsage applies message_delta's counts: cumulative totals for the
// whole message, each present only when it applies.
func (a *anthropicAccumulator) messageUsage(u anthropic.MessageDeltaUsage) {
	a.usage.OutputTokens = u.OutputTokens
	if u.JSON.InputTokens.Valid() {
		a.usage.InputTokens = u.InputTokens
	}
	if u.JSON.CacheReadInputTokens.Valid() {
		a.usage.CacheReadTokens = u.CacheReadInputTokens
	}
	if u.JSON.CacheCreationInputTokens.Valid() {
		a.usage.CacheCreationTokens = u.CacheCreationInputTokens
	}
	if u.JSON.OutputTokensDetails.Valid() {
		a.usage.ReasoningTokens = u.OutputTokensDetails.ThinkingTokens
	}
}

func (a *anthropicAccumulator) start(index int64, cb anthropic.ContentBlockStartEventContentBlockUnion) {
	b := &streamBlock{}
	switch cb.Type {
	case "text":
		b.blk.Type = message.Text
		a.text(b, cb.Text, provider.DeltaText)
	case "thinking":
		b.blk = message.Block{Type: message.Thinking, Provider: a.provider}
		a.text(b, cb.Thinking, provider.DeltaThinking)
		b.sig.WriteString(cb.Signature)
	case "redacted_thinking":
		b.blk = message.Block{Type: message.RedactedThinking, Provider: a.provider, Data: cb.Data}
	case "tool_use":
		b.blk = message.Block{Type: message.ToolUse, ID: cb.ID, Name: cb.Name}
		if raw := cb.JSON.Input.Raw(); raw != "" && raw != "{}" && raw != "null" {
			b.input = []byte(raw)
		}
		a.onDelta(provider.Delta{Kind: provider.DeltaToolStart, ToolID: cb.ID, ToolName: cb.Name})
	case "web_search_tool_result":
		a.searchResults(cb.RawJSON())
		return
	default:
		// Other server-side blocks (server_tool_use, ...): the answer's
		// text is what tandem keeps.
		return
	}
	a.blocks = append(a.blocks, b)
	a.byIndex[index] = b
}

func (a *anthropicAccumulator) text(b *streamBlock, s string, kind provider.DeltaKind) {
	if s == "" {
		return
	}
	b.text.WriteString(s)
	a.onDelta(provider.Delta{Kind: kind, Text: s})
}

func (a *anthropicAccumulator) delta(index int64, d anthropic.MessageStreamEventUnionDelta) {
	b, ok := a.byIndex[index]
	if !ok {
		return
	}
	switch d.Type {
	case "text_delta":
		a.text(b, d.Text, provider.DeltaText)
	case "thinking_delta":
		a.text(b, d.Thinking, provider.DeltaThinking)
	case "signature_delta":
		b.sig.WriteString(d.Signature)
	case "citations_delta":
		if c := d.Citation; c.URL != "" && c.CitedText != "" {
			i := a.source(c.URL, c.Title)
			a.sources[i].Cited = append(a.sources[i].Cited, c.CitedText)
		}
	case "input_json_delta":
		if !b.delta {
			b.input, b.delta = b.input[:0], true
		}
		b.input = append(b.input, d.PartialJSON...)
	}
}

func (a *anthropicAccumulator) response(model string) *provider.Response {
	content := make([]message.Block, 0, len(a.blocks))
	for _, b := range a.blocks {
		blk := b.blk
		switch blk.Type {
		case message.Text:
			blk.Text = b.text.String()
			if blk.Text == "" {
				continue
			}
		case message.Thinking:
			blk.Text, blk.Signature = b.text.String(), b.sig.String()
			if blk.Text == "" && blk.Signature == "" {
				continue
			}
		case message.ToolUse:
			blk.Input = provider.ToolInput(string(b.input))
		}
		content = append(content, blk)
	}
	return &provider.Response{Content: content, Usage: a.usage, StopReason: a.stopReason, Model: model, Sources: a.sources}
}

// searchResults records the pages of a web_search_tool_result block (an
// error result has no list and adds nothing).
func (a *anthropicAccumulator) searchResults(raw string) {
	var blk struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal([]byte(raw), &blk) != nil {
		return
	}
	var results []struct {
		URL   string `json:"url"`
		Title string `json:"title"`
	}
	if json.Unmarshal(blk.Content, &results) != nil {
		return
	}
	for _, r := range results {
		if r.URL != "" {
			a.source(r.URL, r.Title)
		}
	}
}

// source returns the index of url in sources, adding it when new.
func (a *anthropicAccumulator) source(url, title string) int {
	if a.sourceAt == nil {
		a.sourceAt = map[string]int{}
	}
	if i, ok := a.sourceAt[url]; ok {
		return i
	}
	a.sources = append(a.sources, provider.Source{URL: url, Title: title})
	a.sourceAt[url] = len(a.sources) - 1
	return len(a.sources) - 1
}
