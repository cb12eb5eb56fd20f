package gemini

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// geminiGeneratedID starts the ids tandem gives function calls that came
// without one (Gemini 2.x); they are not sent back.
const geminiGeneratedID = "gemini_call_"

type geminiChunk struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text         string `json:"text"`
				Thought      bool   `json:"thought"`
				Signature    string `json:"thoughtSignature"`
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
		ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

// geminiAccumulator merges streamed chunks: consecutive text (and thought)
// parts extend one block; each function call is a block of its own.
type geminiAccumulator struct {
	provider string
	onDelta  func(provider.Delta)
	blocks   []message.Block
	usage    message.Usage
	finish   string
	calls    int
}

func newGeminiAccumulator(name string, onDelta func(provider.Delta)) *geminiAccumulator {
	if onDelta == nil {
		onDelta = func(provider.Delta) {}
	}
	return &geminiAccumulator{provider: name, onDelta: onDelta}
}

func (a *geminiAccumulator) add(data []byte) error {
	var ch geminiChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("decode Gemini chunk: %w", err)
	}
	if e := ch.Error; e != nil {
		retry := e.Status == "UNAVAILABLE" || e.Status == "RESOURCE_EXHAUSTED" || e.Status == "INTERNAL" || e.Code >= 500
		return &provider.Error{Provider: a.provider, Message: provider.Shorten(cmp.Or(e.Message, e.Status)), Retryable: retry}
	}
	if ch.PromptFeedback != nil && ch.PromptFeedback.BlockReason != "" {
		return &provider.Error{Provider: a.provider, Message: "Gemini blocked the prompt: " + ch.PromptFeedback.BlockReason}
	}
	if u := ch.UsageMetadata; u != nil {
		a.usage = message.Usage{InputTokens: u.PromptTokenCount - u.CachedContentTokenCount, CacheReadTokens: u.CachedContentTokenCount,
			OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, ReasoningTokens: u.ThoughtsTokenCount}
	}
	if len(ch.Candidates) == 0 {
		return nil
	}
	c := ch.Candidates[0]
	for _, p := range c.Content.Parts {
		switch {
		case p.FunctionCall != nil:
			id := p.FunctionCall.ID
			if id == "" {
				a.calls++
				id = fmt.Sprintf("%s%d", geminiGeneratedID, a.calls)
			}
			a.onDelta(provider.Delta{Kind: provider.DeltaToolStart, ToolID: id, ToolName: p.FunctionCall.Name})
			a.blocks = append(a.blocks, message.Block{Type: message.ToolUse, ID: id, Name: p.FunctionCall.Name,
				Input: provider.ToolInput(string(p.FunctionCall.Args)), Signature: p.Signature, Provider: a.signer(p.Signature)})
		case p.Thought:
			a.onDelta(provider.Delta{Kind: provider.DeltaThinking, Text: p.Text})
			a.extend(message.Thinking, p.Text, p.Signature)
		case p.Text != "" || p.Signature != "":
			if p.Text != "" {
				a.onDelta(provider.Delta{Kind: provider.DeltaText, Text: p.Text})
			}
			a.extend(message.Text, p.Text, p.Signature)
		}
	}
	if c.FinishReason != "" {
		a.finish = c.FinishReason
	}
	return nil
}

// signer is the provider to record on a block with a signature.
func (a *geminiAccumulator) signer(sig string) string {
	if sig == "" {
		return ""
	}
	return a.provider
}

func (a *geminiAccumulator) extend(typ message.BlockType, text, sig string) {
	if n := len(a.blocks); n > 0 && a.blocks[n-1].Type == typ && a.blocks[n-1].Signature == "" {
		last := &a.blocks[n-1]
		last.Text += text
		if sig != "" {
			last.Signature, last.Provider = sig, a.provider
		}
		return
	}
	b := message.Block{Type: typ, Text: text, Signature: sig}
	if typ == message.Thinking || sig != "" {
		b.Provider = a.provider
	}
	a.blocks = append(a.blocks, b)
}

func (a *geminiAccumulator) response(model string) *provider.Response {
	stop := "end_turn"
	switch a.finish {
	case "MAX_TOKENS":
		stop = "max_tokens"
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII":
		stop = "refusal"
	}
	var content []message.Block
	for _, b := range a.blocks {
		if b.Type == message.Text && b.Text == "" && b.Signature == "" {
			continue
		}
		if b.Type == message.ToolUse {
			stop = "tool_use"
		}
		content = append(content, b)
	}
	return &provider.Response{Content: content, Usage: a.usage, StopReason: stop, Model: model}
}
