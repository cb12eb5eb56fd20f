package responses

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// responsesEvent is the part of a Responses stream event tandem reads.
type responsesEvent struct {
	Type        string          `json:"type"`
	Delta       string          `json:"delta"`
	OutputIndex int             `json:"output_index"`
	Item        responsesItem   `json:"item"`
	Response    json.RawMessage `json:"response"`
	Code        string          `json:"code"`
	Message     string          `json:"message"`
}

type responsesItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	EncryptedContent string `json:"encrypted_content"`
}

type responsesResult struct {
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// responsesAccumulator builds the response from the stream: deltas go to
// onDelta as they come; each output item's final form (output_item.done)
// becomes its blocks, in output order.
type responsesAccumulator struct {
	provider string
	onDelta  func(provider.Delta)
	items    map[int][]message.Block
	usage    message.Usage
	stop     string
	done     bool
}

func newResponsesAccumulator(name string, onDelta func(provider.Delta)) *responsesAccumulator {
	if onDelta == nil {
		onDelta = func(provider.Delta) {}
	}
	return &responsesAccumulator{provider: name, onDelta: onDelta, items: map[int][]message.Block{}}
}

func (a *responsesAccumulator) add(raw string) error {
	var ev responsesEvent
	if err := json.Unmarshal([]byte(raw), &ev); err != nil {
		return fmt.Errorf("decode Responses event: %w", err)
	}
	switch ev.Type {
	case "response.output_text.delta":
		a.onDelta(provider.Delta{Kind: provider.DeltaText, Text: ev.Delta})
	case "response.reasoning_summary_text.delta":
		a.onDelta(provider.Delta{Kind: provider.DeltaThinking, Text: ev.Delta})
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			a.onDelta(provider.Delta{Kind: provider.DeltaToolStart, ToolID: ev.Item.CallID, ToolName: ev.Item.Name})
		}
	case "response.output_item.done":
		a.items[ev.OutputIndex] = a.blocks(ev.Item)
	case "response.completed", "response.incomplete":
		return a.finish(ev.Response)
	case "response.failed":
		var r responsesResult
		_ = json.Unmarshal(ev.Response, &r)
		if r.Error != nil {
			return streamError(a.provider, r.Error.Code, r.Error.Message)
		}
		return streamError(a.provider, "", "the response failed")
	case "error":
		return streamError(a.provider, ev.Code, ev.Message)
	}
	return nil
}

func (a *responsesAccumulator) blocks(it responsesItem) []message.Block {
	switch it.Type {
	case "message":
		var out []message.Block
		for _, c := range it.Content {
			switch {
			case c.Type == "output_text" && c.Text != "":
				out = append(out, message.TextBlock(c.Text))
			case c.Type == "refusal" && c.Refusal != "":
				out = append(out, message.TextBlock(c.Refusal))
				a.stop = "refusal"
			}
		}
		return out
	case "reasoning":
		text := ""
		for i, s := range it.Summary {
			if i > 0 {
				text += "\n\n"
			}
			text += s.Text
		}
		if text == "" && it.EncryptedContent == "" {
			return nil // nothing to show and nothing to send back
		}
		sig, _ := json.Marshal(reasoningItem{ID: it.ID, EncryptedContent: it.EncryptedContent})
		return []message.Block{{Type: message.Thinking, Text: text, Signature: string(sig), Provider: a.provider}}
	case "function_call":
		return []message.Block{{Type: message.ToolUse, ID: it.CallID, Name: it.Name, Input: provider.ToolInput(it.Arguments)}}
	}
	return nil
}

func (a *responsesAccumulator) finish(raw json.RawMessage) error {
	var r responsesResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("decode Responses result: %w", err)
	}
	if u := r.Usage; u != nil {
		cached := u.InputTokensDetails.CachedTokens
		// Anthropic's convention, which every adapter reports in: input
		// excludes the cached part.
		a.usage = message.Usage{InputTokens: u.InputTokens - cached, CacheReadTokens: cached,
			OutputTokens: u.OutputTokens, ReasoningTokens: u.OutputTokensDetails.ReasoningTokens}
	}
	if r.IncompleteDetails != nil {
		switch r.IncompleteDetails.Reason {
		case "max_output_tokens":
			a.stop = "max_tokens"
		case "content_filter":
			a.stop = "refusal"
		}
	}
	a.done = true
	return nil
}

func (a *responsesAccumulator) response(model string) *provider.Response {
	idx := make([]int, 0, len(a.items))
	for i := range a.items {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var content []message.Block
	for _, i := range idx {
		content = append(content, a.items[i]...)
	}
	stop := a.stop
	for _, b := range content {
		if b.Type == message.ToolUse {
			stop = "tool_use"
		}
	}
	if stop == "" {
		stop = "end_turn"
	}
	return &provider.Response{Content: content, Usage: a.usage, StopReason: stop, Model: model}
}

// streamError is an error the API reported inside a 200 stream; server
// trouble and rate limits are worth another attempt.
func streamError(name, code, msg string) *provider.Error {
	retry := code == "" || code == "server_error" || code == "rate_limit_exceeded" || code == "server_is_overloaded" || code == "slow_down"
	return &provider.Error{Provider: name, Message: provider.Shorten(cmp.Or(msg, code, "error event")), Retryable: retry}
}
