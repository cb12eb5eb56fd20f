package prompt

import "strings"

// Family is a group of models that share prompting guidance: each gets
// the shared sections plus its own short addendum (sections/family/*.md).
type Family string

const (
	Claude Family = "claude" // Anthropic's Claude models, wherever served
	GPT    Family = "gpt"    // OpenAI's GPT-5.x and o-series reasoning models
	Gemini Family = "gemini" // Google's Gemini models
	Open   Family = "open"   // open models (Ollama, vLLM, llama.cpp, gateways)
)

// Families lists every family, in the order `tandem prompt show` and the
// golden tests walk them.
func Families() []Family { return []Family{Claude, GPT, Gemini, Open} }

// FamilyOf picks the family from the model id as the provider knows it
// (Bedrock's "anthropic.claude-…", Vertex's "gemini-…", an Ollama tag).
// OpenAI's open-weight gpt-oss runs on local servers and takes the open
// models' guidance; anything unknown does too, since that guidance is the
// most explicit.
func FamilyOf(modelID string) Family {
	id := strings.ToLower(modelID)
	if i := strings.LastIndex(id, "/"); i >= 0 {
		id = id[i+1:]
	}
	switch {
	case strings.Contains(id, "claude"):
		return Claude
	case strings.Contains(id, "gemini"):
		return Gemini
	case strings.Contains(id, "gpt-oss"):
		return Open
	case strings.HasPrefix(id, "gpt-"), strings.Contains(id, "codex"),
		len(id) > 1 && id[0] == 'o' && id[1] >= '1' && id[1] <= '9':
		return GPT
	}
	return Open
}

// ParseFamily reads a family name (for `tandem prompt show --family`).
func ParseFamily(s string) (Family, bool) {
	for _, f := range Families() {
		if strings.EqualFold(s, string(f)) {
			return f, true
		}
	}
	return "", false
}
