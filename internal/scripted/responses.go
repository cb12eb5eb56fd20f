package scripted

import (
	"net/http"
	"time"
)

// The OpenAI Responses API (POST .../responses): the reply as output items
// (reasoning with its summary and encrypted content, the message, function
// calls), streamed as the API's typed events.

type rItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Status           string          `json:"status,omitempty"`
	Role             string          `json:"role,omitempty"`
	Content          []rContent      `json:"content,omitempty"`
	Summary          *[]rSummaryPart `json:"summary,omitempty"`
	EncryptedContent *string         `json:"encrypted_content,omitempty"`
	CallID           string          `json:"call_id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Arguments        *string         `json:"arguments,omitempty"`
}

type rContent struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type rSummaryPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type rUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int64 `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int64 `json:"total_tokens"`
}

type rResponse struct {
	ID                string  `json:"id"`
	Object            string  `json:"object"`
	CreatedAt         int64   `json:"created_at"`
	Status            string  `json:"status"`
	Model             string  `json:"model"`
	Output            []rItem `json:"output"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error any     `json:"error"`
	Usage *rUsage `json:"usage"`
}

// responsesItems are the reply's output items, whole. encrypted: the
// request asked for reasoning.encrypted_content (the thinking's Signature).
func responsesItems(rep reply, encrypted bool) []rItem {
	var out []rItem
	if rep.thinking != "" {
		it := rItem{Type: "reasoning", ID: randomID("rs_", 48), Summary: &[]rSummaryPart{{Type: "summary_text", Text: rep.thinking}}}
		if encrypted {
			it.EncryptedContent = ptr(rep.signature)
		}
		out = append(out, it)
	}
	if rep.text != "" || len(rep.calls) == 0 {
		out = append(out, rItem{Type: "message", ID: randomID("msg_", 48), Status: "completed", Role: "assistant",
			Content: []rContent{{Type: "output_text", Text: rep.text, Annotations: []any{}}}})
	}
	for _, c := range rep.calls {
		out = append(out, rItem{Type: "function_call", ID: randomID("fc_", 48), Status: "completed", CallID: c.id, Name: c.name, Arguments: ptr(c.input)})
	}
	return out
}

func responsesObject(rep reply, encrypted bool) rResponse {
	r := rResponse{ID: randomID("resp_", 48), Object: "response", CreatedAt: time.Now().Unix(), Status: "completed",
		Model: rep.model, Output: responsesItems(rep, encrypted)}
	if rep.stopReason == "max_tokens" {
		r.Status = "incomplete"
		r.IncompleteDetails = &struct {
			Reason string `json:"reason"`
		}{"max_output_tokens"}
	}
	u := &rUsage{InputTokens: rep.usage.InputTokens + rep.usage.CacheReadInputTokens + rep.usage.CacheCreationInputTokens,
		OutputTokens: rep.usage.OutputTokens}
	u.InputTokensDetails.CachedTokens = rep.usage.CacheReadInputTokens
	u.TotalTokens = u.InputTokens + u.OutputTokens
	r.Usage = u
	return r
}

// responsesEvents is the streamed reply: created, then each item added,
// its deltas and done, then completed (incomplete at max_tokens).
func responsesEvents(rep reply, encrypted bool) []map[string]any {
	final := responsesObject(rep, encrypted)
	var evs []map[string]any
	add := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = len(evs)
		evs = append(evs, fields)
	}
	start := final
	start.Status, start.Output, start.Usage, start.IncompleteDetails = "in_progress", []rItem{}, nil, nil
	add("response.created", map[string]any{"response": start})
	for i, it := range final.Output {
		added := it
		switch it.Type {
		case "reasoning":
			added.Summary, added.EncryptedContent = &[]rSummaryPart{}, nil
		case "message":
			added.Content, added.Status = []rContent{}, "in_progress"
		case "function_call":
			added.Arguments, added.Status = ptr(""), "in_progress"
		}
		add("response.output_item.added", map[string]any{"output_index": i, "item": added})
		switch it.Type {
		case "reasoning":
			for _, piece := range splitChunks(rep.thinking, rep.chunkSize) {
				add("response.reasoning_summary_text.delta", map[string]any{"output_index": i, "item_id": it.ID, "summary_index": 0, "delta": piece})
			}
			add("response.reasoning_summary_text.done", map[string]any{"output_index": i, "item_id": it.ID, "summary_index": 0, "text": rep.thinking})
		case "message":
			for _, piece := range splitChunks(rep.text, rep.chunkSize) {
				add("response.output_text.delta", map[string]any{"output_index": i, "item_id": it.ID, "content_index": 0, "delta": piece})
			}
			add("response.output_text.done", map[string]any{"output_index": i, "item_id": it.ID, "content_index": 0, "text": rep.text})
		case "function_call":
			for _, piece := range splitChunks(*it.Arguments, rep.chunkSize) {
				add("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": it.ID, "delta": piece})
			}
			add("response.function_call_arguments.done", map[string]any{"output_index": i, "item_id": it.ID, "arguments": *it.Arguments})
		}
		add("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	end := "response.completed"
	if final.Status == "incomplete" {
		end = "response.incomplete"
	}
	add(end, map[string]any{"response": final})
	return evs
}

// wantsEncrypted reports a request's include of
// reasoning.encrypted_content.
func wantsEncrypted(body map[string]any) bool {
	inc, _ := body["include"].([]any)
	for _, v := range inc {
		if v == "reasoning.encrypted_content" {
			return true
		}
	}
	return false
}

// writeResponsesStream streams the reply as Responses SSE. A mid-stream
// fault sends about half of the events and then drops the connection.
func writeResponsesStream(w http.ResponseWriter, out *sink, rep reply, encrypted, midStream bool) error {
	return writeEvents(w, out, responsesEvents(rep, encrypted), func(ev map[string]any) string { return ev["type"].(string) }, midStream)
}

// responsesConversation reads Responses input items as the messages step
// selection counts: a run of assistant output (messages, reasoning,
// function calls) is one assistant turn; function outputs are tool
// messages.
func responsesConversation(input any) []any {
	switch in := input.(type) {
	case string:
		return []any{map[string]any{"role": "user", "content": in}}
	case []any:
		out := make([]any, 0, len(in))
		for _, x := range in {
			it, _ := x.(map[string]any)
			typ, _ := it["type"].(string)
			switch typ {
			case "function_call":
				out = append(out, map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": it["call_id"]}}})
			case "reasoning":
				out = append(out, map[string]any{"role": "assistant"})
			case "function_call_output":
				out = append(out, map[string]any{"role": "tool"})
			default: // a message, with or without its type
				out = append(out, map[string]any{"role": it["role"], "content": it["content"]})
			}
		}
		return out
	}
	return nil
}
