package claudecode

import (
	"strconv"
	"strings"

	"github.com/tandem-agent/tandem/internal/turn"
)

// turnFlags are the CLI arguments for what the user or host asked of the
// turn beyond the prompt: structured output, fallback models, effort and
// thinking. Each is what the native runtime honours for the same input,
// passed by the CLI's own flag so the CLI does the work itself.
func turnFlags(opts Options, in turn.Input) []string {
	var args []string
	if len(in.JSONSchema) > 0 {
		// The CLI gives the model a StructuredOutput tool whose input must
		// conform; the result carries it as structured_output.
		args = append(args, "--json-schema", string(in.JSONSchema))
	}
	if fb := fallbackModels(in, opts.ProviderName); len(fb) > 0 {
		args = append(args, "--fallback-model", strings.Join(fb, ","))
	}
	if e := firstNonEmpty(in.Effort, opts.Effort); e != "" {
		args = append(args, "--effort", e)
	}
	budget := opts.ThinkingBudget
	if in.ThinkingBudget != nil {
		budget = max(*in.ThinkingBudget, 0)
	}
	switch {
	case budget > 0:
		// Claude Code reads the budget from --max-thinking-tokens (the
		// flag form of MAX_THINKING_TOKENS).
		args = append(args, "--max-thinking-tokens", strconv.FormatInt(budget, 10))
	case in.ThinkingBudget != nil:
		// The host turned thinking off for this turn.
		args = append(args, "--thinking", "disabled")
	}
	return args
}

// fallbackModels are the turn's fallback models as the CLI names them,
// without the turn's own model and duplicates.
func fallbackModels(in turn.Input, provider string) []string {
	main := modelName(in.Model, provider)
	var out []string
	for _, spec := range in.FallbackModels {
		m := modelName(spec, provider)
		// Another provider's model (still "provider/model") is beyond the
		// CLI, which talks to one Anthropic endpoint.
		if m == "" || m == main || strings.ContainsAny(m, ",/") {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == m
		}
		if !dup {
			out = append(out, m)
		}
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
