package compact

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/provider"
)

// Overflow is what a provider's context overflow error said.
type Overflow struct {
	// Limit is the input budget the error implies, in tokens: the window
	// less the output the server reserved when it said so; 0 when the
	// error named no limit.
	Limit int64
	// Sent is the prompt size the server counted (0 when not said).
	Sent int64
	// Excess is how far over the limit the prompt was (Ollama names only
	// this); 0 when not said.
	Excess int64
	// Output is the reserved output the server counted against the
	// window (vLLM, DeepSeek, OpenRouter); 0 when not said.
	Output int64
	// Message is the provider's own message.
	Message string
}

// overflowPattern reads numbers from one provider's wording. The groups
// named limit, sent, output and excess are read when present.
type overflowPattern struct {
	name string
	expr string
	re   *regexp.Regexp
}

// overflowPatterns are the real messages, from each server's source or
// issue reports (see docs/compaction.md for examples). They are compiled
// on first use: every start of tandem would pay for them otherwise.
var overflowPatterns = sync.OnceValue(func() []overflowPattern {
	ps := []overflowPattern{
		// Anthropic: "prompt is too long: 213456 tokens > 200000 maximum"
		{name: "anthropic", expr: `prompt is too long: (?P<sent>\d+) tokens > (?P<limit>\d+) maximum`},
		// Anthropic, counting max_tokens: "input length and `max_tokens` exceed context limit: 188000 + 20000 > 200000, decrease input length or `max_tokens` and try again"
		{name: "anthropic-output", expr: "input length and `max_tokens` exceed context limit: (?P<sent>\\d+) \\+ (?P<output>\\d+) > (?P<limit>\\d+)"},
		// Gemini: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)."
		{name: "gemini", expr: `input token count \((?P<sent>\d+)\) exceeds the maximum number of tokens allowed \((?P<limit>\d+)\)`},
		// vLLM, DeepSeek, old OpenAI: "This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion)."
		{name: "requested", expr: `maximum context length is (?P<limit>\d+) tokens\. However, you requested (?:about )?\d+ tokens \((?P<sent>\d+) (?:in the messages|of text input)[^)]*?(?P<output>\d+) (?:in the completion|in the output)\)`},
		// vLLM 0.20+: "...maximum context length is 128000 tokens. However, you requested 65535 output tokens and your prompt contains at least 62466 input tokens"
		{name: "vllm", expr: `maximum context length is (?P<limit>\d+) tokens\. However, you requested (?P<output>\d+) output tokens and your prompt contains at least (?P<sent>\d+) input tokens`},
		// OpenRouter: "This endpoint's maximum context length is 200000 tokens. However, you requested about 5028244 tokens (4945291 of text input, 2953 of tool input, 80000 in the output)."
		{name: "openrouter", expr: `maximum context length is (?P<limit>\d+) tokens\. However, you requested about \d+ tokens \((?P<sent>\d+) of text input, \d+ of tool input, (?P<output>\d+) in the output\)`},
		// OpenAI: "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens."
		{name: "openai", expr: `maximum context length is (?P<limit>\d+) tokens\. However, your messages resulted in (?P<sent>\d+) tokens`},
		// llama.cpp server: "request (4476 tokens) exceeds the available context size (4096 tokens)"
		{name: "llama.cpp", expr: `request \((?P<sent>\d+) tokens\) exceeds the available context size \((?P<limit>\d+) tokens\)`},
		// LM Studio: "Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens"
		{name: "lmstudio", expr: `keep the first (?P<sent>\d+) tokens when context the overflows\. However, the model is loaded with context length of only (?P<limit>\d+) tokens`},
		// LM Studio (newer), llama.cpp: "(n_keep: 13055>= n_ctx: 4096)", "n_keep (15028) >= n_ctx (7424)"
		{name: "n_ctx", expr: `n_keep[:( ]+(?P<sent>\d+)\)?\s*>=\s*n_ctx[:( ]+(?P<limit>\d+)`},
		// Ollama: "prompt too long; exceeded max context length by 4 tokens"
		{name: "ollama", expr: `exceeded max context length by (?P<excess>\d+) tokens`},
		// Generic: Mistral, Together, Gemini, others that name a limit.
		{name: "generic", expr: `(?i)(?:too large for model with|longer than the model's context length \(|maximum context length of) (?P<limit>\d+)`},
	}
	for i := range ps {
		ps[i].re = regexp.MustCompile(ps[i].expr)
	}
	return ps
})

// overflowPhrases say "context overflow" without numbers.
var overflowPhrases = []string{
	"context_length_exceeded", "prompt is too long", "maximum context length", "context length exceeded",
	"exceeds the context window", "exceeds the available context size", "context size has been exceeded",
	"input is too long", "too many tokens", "greater than the context length", "exceeded max context length",
	"reduce the length of the messages", "model_context_window_exceeded", "exceed_context_size_error",
}

// ParseOverflow reports whether err is a provider's context overflow, and
// what it said about the limit.
func ParseOverflow(err error) (Overflow, bool) {
	pe, ok := provider.AsError(err)
	// A 429 is a rate limit, whatever its wording ("too many tokens per
	// minute"); some servers answer an overflow with a 500, so other
	// retryable statuses are still read.
	if !ok || pe.Auth || pe.Status == http.StatusTooManyRequests {
		return Overflow{}, false
	}
	return parseOverflowMessage(pe.Status, pe.Message)
}

func parseOverflowMessage(status int, msg string) (Overflow, bool) {
	o := Overflow{Message: msg}
	for _, p := range overflowPatterns() {
		m := p.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		num := func(name string) int64 {
			i := p.re.SubexpIndex(name)
			if i < 0 {
				return 0
			}
			n, _ := strconv.ParseInt(m[i], 10, 64)
			return n
		}
		o.Limit, o.Sent, o.Excess, o.Output = num("limit"), num("sent"), num("excess"), num("output")
		if out := o.Output; out > 0 && out < o.Limit {
			// The server counts the reserved output against the window.
			o.Limit -= out
		}
		return o, true
	}
	low := strings.ToLower(msg)
	for _, p := range overflowPhrases {
		if strings.Contains(low, p) {
			return o, true
		}
	}
	// Anthropic answers an over-size body with 413 request_too_large.
	return o, status == http.StatusRequestEntityTooLarge
}

// LearnedLimit is the input budget to remember after an overflow of a
// request estimated at sent tokens: what the error named, or for errors
// that only name the excess, sent less the excess. 0 means unknown.
func (o Overflow) LearnedLimit(sent int64) int64 {
	switch {
	case o.Limit > 0:
		return o.Limit
	case o.Excess > 0:
		base := sent
		if o.Sent > 0 {
			base = o.Sent
		}
		if base > o.Excess {
			// base is partly our estimate: stay 2% under it.
			return (base - o.Excess) * 98 / 100
		}
	}
	return 0
}

// OutputTooLarge reports an overflow caused by the requested output alone:
// the server counts max_tokens against a window no larger than it, and no
// compaction can help.
func (o Overflow) OutputTooLarge() bool {
	return o.Output > 0 && o.Limit > 0 && o.Output >= o.Limit
}
