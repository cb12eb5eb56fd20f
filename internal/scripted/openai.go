package scripted

import (
	"encoding/json"
	"net/http"
	"time"
)

// Wire shapes of OpenAI Chat Completions.

type oFunction struct {
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

type oToolCall struct {
	Index    *int      `json:"index,omitempty"`
	ID       string    `json:"id,omitempty"`
	Type     string    `json:"type,omitempty"`
	Function oFunction `json:"function"`
}

type oMessage struct {
	Role             string      `json:"role"`
	Content          *string     `json:"content"`
	ReasoningContent string      `json:"reasoning_content,omitempty"`
	ToolCalls        []oToolCall `json:"tool_calls,omitempty"`
	Refusal          *string     `json:"refusal"`
	Annotations      []any       `json:"annotations"`
}

type oDelta struct {
	Role             string      `json:"role,omitempty"`
	Content          *string     `json:"content,omitempty"`
	ReasoningContent *string     `json:"reasoning_content,omitempty"`
	ToolCalls        []oToolCall `json:"tool_calls,omitempty"`
}

type oChoice struct {
	Index        int       `json:"index"`
	Message      *oMessage `json:"message,omitempty"`
	Delta        *oDelta   `json:"delta,omitempty"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type oUsage struct {
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

type oCompletion struct {
	ID                string    `json:"id"`
	Object            string    `json:"object"`
	Created           int64     `json:"created"`
	Model             string    `json:"model"`
	Choices           []oChoice `json:"choices"`
	Usage             *oUsage   `json:"usage,omitempty"`
	ServiceTier       string    `json:"service_tier"`
	SystemFingerprint string    `json:"system_fingerprint"`
}

// finishReason maps an Anthropic stop reason to OpenAI's vocabulary;
// anything else passes through.
func finishReason(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "refusal":
		return "content_filter"
	}
	return stop
}

// openAIUsage: OpenAI's prompt_tokens include cached tokens.
func (rep reply) openAIUsage() *oUsage {
	u := &oUsage{
		PromptTokens:     rep.usage.InputTokens + rep.usage.CacheReadInputTokens + rep.usage.CacheCreationInputTokens,
		CompletionTokens: rep.usage.OutputTokens,
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.PromptTokensDetails.CachedTokens = rep.usage.CacheReadInputTokens
	return u
}

func openAICompletion(rep reply) oCompletion {
	msg := &oMessage{Role: "assistant", ReasoningContent: rep.thinking, Annotations: []any{}}
	if rep.text != "" || len(rep.calls) == 0 {
		msg.Content = ptr(rep.text)
	}
	for _, c := range rep.calls {
		msg.ToolCalls = append(msg.ToolCalls, oToolCall{ID: c.id, Type: "function", Function: oFunction{Name: c.name, Arguments: ptr(c.input)}})
	}
	return oCompletion{
		ID: newCompletionID(), Object: "chat.completion", Created: time.Now().Unix(), Model: rep.model,
		Choices:     []oChoice{{Message: msg, FinishReason: ptr(finishReason(rep.stopReason))}},
		Usage:       rep.openAIUsage(),
		ServiceTier: "default", SystemFingerprint: "fp_scripted",
	}
}

// openAIChunks is the streamed reply: role, reasoning, text, tool calls,
// finish, and (when asked for) a final usage chunk.
func openAIChunks(rep reply, withUsage bool) []oCompletion {
	base := oCompletion{
		ID: newCompletionID(), Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: rep.model,
		ServiceTier: "default", SystemFingerprint: "fp_scripted",
	}
	var chunks []oCompletion
	add := func(d oDelta, finish *string) {
		c := base
		c.Choices = []oChoice{{Delta: &d, FinishReason: finish}}
		chunks = append(chunks, c)
	}
	first := oDelta{Role: "assistant"}
	if rep.text != "" || rep.thinking != "" || len(rep.calls) == 0 {
		first.Content = ptr("")
		add(first, nil)
	}
	for _, piece := range splitChunks(rep.thinking, rep.chunkSize) {
		add(oDelta{ReasoningContent: ptr(piece)}, nil)
	}
	for _, piece := range splitChunks(rep.text, rep.chunkSize) {
		add(oDelta{Content: ptr(piece)}, nil)
	}
	for i, c := range rep.calls {
		head := oDelta{ToolCalls: []oToolCall{{Index: ptr(i), ID: c.id, Type: "function", Function: oFunction{Name: c.name, Arguments: ptr("")}}}}
		if len(chunks) == 0 {
			head.Role = "assistant" // tool-only replies carry the role on the first tool chunk
		}
		add(head, nil)
		for _, piece := range splitChunks(c.input, rep.chunkSize) {
			add(oDelta{ToolCalls: []oToolCall{{Index: ptr(i), Function: oFunction{Arguments: ptr(piece)}}}}, nil)
		}
	}
	add(oDelta{}, ptr(finishReason(rep.stopReason)))
	if withUsage {
		c := base
		c.Choices = []oChoice{}
		c.Usage = rep.openAIUsage()
		chunks = append(chunks, c)
	}
	return chunks
}

// writeOpenAIStream streams the reply as OpenAI SSE. A mid-stream fault
// sends about half of the chunks and then drops the connection.
func writeOpenAIStream(w http.ResponseWriter, out *sink, rep reply, withUsage, midStream bool) error {
	if err := writeEvents(w, out, openAIChunks(rep, withUsage), func(oCompletion) string { return "" }, midStream); err != nil {
		return err
	}
	return out.write(sseEvent("", []byte("[DONE]")))
}

// writeEvents streams evs as server-sent events, each named by name (""
// for none). A mid-stream fault sends about half of them and then drops
// the connection (errCut).
func writeEvents[T any](w http.ResponseWriter, out *sink, evs []T, name func(T) string, midStream bool) error {
	if midStream {
		evs = evs[:max(len(evs)/2, 1)]
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	setRequestID(w)
	w.WriteHeader(http.StatusOK)
	for _, ev := range evs {
		data, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if err := out.write(sseEvent(name(ev), data)); err != nil {
			return err
		}
	}
	if midStream {
		out.abort()
		return errCut
	}
	return nil
}
