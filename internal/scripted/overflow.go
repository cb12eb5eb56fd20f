package scripted

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// overflowDialects render each server's real context overflow error for a
// prompt of n tokens against a window of limit, with out the request's
// max_tokens. They return the status and the body. The wording and shapes
// come from the servers' own sources and issue reports.
var overflowDialects = map[string]func(n, out, limit int64) (int, any){
	"": openAIOverflow, "openai": openAIOverflow,
	"vllm": func(n, out, limit int64) (int, any) {
		return 400, map[string]any{"object": "error", "type": "BadRequestError", "param": nil, "code": 400,
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", limit, n+out, n, out)}
	},
	"deepseek": func(n, out, limit int64) (int, any) {
		return 400, map[string]any{"error": map[string]any{"type": "invalid_request_error", "param": nil, "code": "invalid_request_error",
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", limit, n+out, n, out)}}
	},
	"llamacpp": func(n, _, limit int64) (int, any) {
		return 400, map[string]any{"error": map[string]any{"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": n, "n_ctx": limit,
			"message": fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", n, limit)}}
	},
	"lmstudio": func(n, _, limit int64) (int, any) {
		return 400, map[string]any{"error": fmt.Sprintf("Trying to keep the first %d tokens when context the overflows. However, the model is loaded with context length of only %d tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input", n, limit)}
	},
	"ollama": func(n, _, limit int64) (int, any) {
		return 400, map[string]any{"error": map[string]any{"type": "api_error", "param": nil, "code": nil,
			"message": fmt.Sprintf("prompt too long; exceeded max context length by %d tokens", n-limit)}}
	},
	"openrouter": func(n, out, limit int64) (int, any) {
		return 400, map[string]any{"error": map[string]any{"code": 400, "metadata": map[string]any{"provider_name": nil},
			"message": fmt.Sprintf("This endpoint's maximum context length is %d tokens. However, you requested about %d tokens (%d of text input, 0 of tool input, %d in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.", limit, n+out, n, out)}}
	},
}

// countsOutput are the dialects whose servers count max_tokens against
// the window.
var countsOutput = map[string]bool{"vllm": true, "deepseek": true, "openrouter": true}

func openAIOverflow(n, _, limit int64) (int, any) {
	return 400, map[string]any{"error": map[string]any{"type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
		"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", limit, n)}}
}

func dialectNames() string {
	var names []string
	for k := range overflowDialects {
		if k != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// overflow reports whether req passes the script's ContextLimit, with the
// error to answer.
func (s *Server) overflow(req *Request, proto protocol) (int, json.RawMessage, bool) {
	limit := s.script.ContextLimit
	if limit <= 0 {
		return 0, nil, false
	}
	n := estimateTokens(len(req.RawBody))
	if proto == protoAnthropic {
		if n <= limit {
			return 0, nil, false
		}
		return 400, errorBody(proto, 400, fmt.Sprintf("prompt is too long: %d tokens > %d maximum", n, limit)), true
	}
	out := maxTokens(req.Body)
	total := n
	if countsOutput[s.script.OverflowDialect] {
		total += out
	}
	if total <= limit {
		return 0, nil, false
	}
	status, body := overflowDialects[s.script.OverflowDialect](n, out, limit)
	data, _ := json.Marshal(body)
	return status, data, true
}

func maxTokens(body map[string]any) int64 {
	for _, k := range []string{"max_tokens", "max_completion_tokens", "max_output_tokens"} {
		if v, ok := body[k].(float64); ok {
			return int64(v)
		}
	}
	return 0
}

// markedToolID is a tool-call id carrying its step: "toolu_01st0007_…".
func markedToolID(proto protocol, step int) string {
	prefix := fmt.Sprintf("toolu_01st%04d_", step)
	if proto == protoOpenAI {
		prefix = fmt.Sprintf("call_st%04d_", step)
	}
	return randomID(prefix, 14)
}

var stepMarker = regexp.MustCompile(`^(?:toolu_01|call_)st(\d{4})_`)

// markedTurns is the step a conversation is at when older turns may have
// been replaced by a summary: one past the last marked tool call, plus the
// assistant turns after it; with no marked call, the assistant turns.
func markedTurns(messages any) int {
	list, _ := messages.([]any)
	n, prevAssistant := 0, false
	for _, m := range list {
		obj, _ := m.(map[string]any)
		role, _ := obj["role"].(string)
		isAssistant := role == "assistant"
		if isAssistant && !prevAssistant {
			n++
		}
		prevAssistant = isAssistant
		if !isAssistant {
			continue
		}
		for _, id := range toolIDs(obj) {
			if m := stepMarker.FindStringSubmatch(id); m != nil {
				k, _ := strconv.Atoi(m[1])
				n = k + 1
			}
		}
	}
	return n
}

// toolIDs lists an assistant message's tool-call ids in either protocol.
func toolIDs(msg map[string]any) []string {
	var out []string
	if blocks, ok := msg["content"].([]any); ok {
		for _, b := range blocks {
			bo, _ := b.(map[string]any)
			if t, _ := bo["type"].(string); t == "tool_use" {
				id, _ := bo["id"].(string)
				out = append(out, id)
			}
		}
	}
	if calls, ok := msg["tool_calls"].([]any); ok {
		for _, c := range calls {
			co, _ := c.(map[string]any)
			id, _ := co["id"].(string)
			out = append(out, id)
		}
	}
	return out
}
