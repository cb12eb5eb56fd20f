package responses

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// responsesEvent is the part of a Responses stream event tandem reads.
type responsesEvent struct {
	Type         string          `json:"type"`
	Delta        string          `json:"delta"`
	Arguments    *string         `json:"arguments"`
	OutputIndex  int             `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Item         *responsesItem  `json:"item"`
	Response     json.RawMessage `json:"response"`
	Code         json.RawMessage `json:"code"`
	Message      string          `json:"message"`
	Error        json.RawMessage `json:"error"`
}

type responsesItem struct {
	Type             string             `json:"type"`
	ID               string             `json:"id"`
	CallID           string             `json:"call_id"`
	Name             string             `json:"name"`
	Arguments        string             `json:"arguments"`
	Content          []responsesContent `json:"content"`
	Summary          []responsesSummary `json:"summary"`
	EncryptedContent string             `json:"encrypted_content"`
}

type responsesContent struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

type responsesSummary struct {
	Text string `json:"text"`
}

type responsesResult struct {
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error  *apiError       `json:"error"`
	Output []responsesItem `json:"output"`
	Usage  *struct {
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

// outputItem is one output item as the stream builds it: the item as
// output_item.added announced it, what its deltas added up to, and its
// final form once output_item.done (or the completed response) gives it.
type outputItem struct {
	item    responsesItem
	done    bool
	text    strings.Builder // output_text deltas
	args    strings.Builder // function_call_arguments deltas, or their done event's whole
	summary []string        // reasoning summary deltas, by summary index
}

// final is the item with what its deltas carried filled in where its own
// fields are empty: a server that skips output_item.done (or sends it
// bare) still gets its text and tool arguments through.
func (o *outputItem) final() responsesItem {
	it := o.item
	switch it.Type {
	case "function_call":
		if it.Arguments == "" {
			it.Arguments = o.args.String()
		}
	case "reasoning":
		if len(it.Summary) == 0 {
			for _, s := range o.summary {
				it.Summary = append(it.Summary, responsesSummary{Text: s})
			}
		}
	case "message", "":
		if len(it.Content) == 0 && o.text.Len() > 0 {
			it.Type = "message"
			it.Content = []responsesContent{{Type: "output_text", Text: o.text.String()}}
		}
	}
	return it
}

// responsesAccumulator builds the response from the stream: deltas go to
// onDelta as they come; each output item becomes its blocks, in output
// order.
type responsesAccumulator struct {
	provider string
	onDelta  func(provider.Delta)
	items    map[int]*outputItem
	usage    message.Usage
	stop     string // from the content: refusal
	limit    string // from the incomplete details, which win
	done     bool
}

func newResponsesAccumulator(name string, onDelta func(provider.Delta)) *responsesAccumulator {
	if onDelta == nil {
		onDelta = func(provider.Delta) {}
	}
	return &responsesAccumulator{provider: name, onDelta: onDelta, items: map[int]*outputItem{}}
}

func (a *responsesAccumulator) at(i int) *outputItem {
	o := a.items[i]
	if o == nil {
		o = &outputItem{}
		a.items[i] = o
	}
	return o
}

// add reads one event's data. Events after the response completed are
// ignored: the response is what it said.
func (a *responsesAccumulator) add(data []byte) error {
	if a.done {
		return nil
	}
	var ev responsesEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("decode Responses event: %w", err)
	}
	switch ev.Type {
	case "response.output_text.delta":
		a.at(ev.OutputIndex).text.WriteString(ev.Delta)
		a.onDelta(provider.Delta{Kind: provider.DeltaText, Text: ev.Delta})
	case "response.reasoning_summary_text.delta":
		o := a.at(ev.OutputIndex)
		if i := ev.SummaryIndex; i >= 0 && i < 1<<10 {
			for len(o.summary) <= i {
				o.summary = append(o.summary, "")
			}
			o.summary[i] += ev.Delta
		}
		a.onDelta(provider.Delta{Kind: provider.DeltaThinking, Text: ev.Delta})
	case "response.function_call_arguments.delta":
		a.at(ev.OutputIndex).args.WriteString(ev.Delta)
	case "response.function_call_arguments.done":
		if ev.Arguments != nil {
			o := a.at(ev.OutputIndex)
			o.args.Reset()
			o.args.WriteString(*ev.Arguments)
		}
	case "response.output_item.added":
		if ev.Item == nil {
			return nil
		}
		if o := a.at(ev.OutputIndex); !o.done {
			o.item = *ev.Item
		}
		if ev.Item.Type == "function_call" {
			a.onDelta(provider.Delta{Kind: provider.DeltaToolStart, ToolID: ev.Item.CallID, ToolName: ev.Item.Name})
		}
	case "response.output_item.done":
		if ev.Item != nil {
			o := a.at(ev.OutputIndex)
			o.item, o.done = *ev.Item, true
		}
	case "response.completed", "response.incomplete":
		return a.finish(ev.Response)
	case "response.failed":
		var r responsesResult
		_ = json.Unmarshal(ev.Response, &r)
		if r.Error != nil {
			return streamError(a.provider, r.Error.code(), r.Error.Message)
		}
		return streamError(a.provider, "", "the response failed")
	case "error":
		return eventError(a.provider, &ev)
	default:
		if len(ev.Error) > 0 && string(ev.Error) != "null" {
			// A bare {"error": ...} chunk (a proxy's), whatever its type.
			return eventError(a.provider, &ev)
		}
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
			a.limit = "max_tokens"
		case "content_filter":
			a.limit = "refusal"
		}
	}
	// The response lists every output item whole; it stands in for any
	// whose output_item.done the stream did not carry.
	for i, it := range r.Output {
		if o := a.at(i); !o.done {
			o.item, o.done = it, true
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
		content = append(content, a.blocks(a.items[i].final())...)
	}
	stop := cmp.Or(a.limit, a.stop)
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
