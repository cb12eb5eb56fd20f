// Package secrets owns the list of tandem's credentials in the environment
// and keeps them out of every process tandem starts for the model or the
// project (Bash commands, background jobs, MCP stdio servers, hook
// commands) and out of what those processes print. A model that runs `env`
// must not read the user's API keys into the conversation.
package secrets

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/regular"
)

// wellKnown are credentials tandem itself (or a provider it talks to) may
// read: provider keys, tokens, cloud credentials and the server token.
// Provider presets and config entries add their api_key_env names (New).
var wellKnown = []string{
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_API_KEY",
	"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_OAUTH_ACCESS_TOKEN",
	"VERTEX_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY",
	"XAI_API_KEY", "TOGETHER_API_KEY", "FIREWORKS_API_KEY", "CEREBRAS_API_KEY", "PERPLEXITY_API_KEY",
	"COHERE_API_KEY", "HF_TOKEN", "HUGGINGFACE_API_KEY", "VLLM_API_KEY", "OLLAMA_API_KEY",
	"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID",
	"BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY", "TAVILY_API_KEY",
	"TANDEM_TOKEN",
}

// minRedactLen is the shortest value that is redacted from output: a
// variable set to "1" or "true" must not blank every such word.
const minRedactLen = 8

// Placeholder replaces a secret value found in output.
const Placeholder = "[REDACTED]"

// Policy says which variables are secret and which of those the user lets
// through to child processes anyway.
type Policy struct {
	secret map[string]bool
	pass   map[string]bool
	files  []string // credential files named in the config (Vertex's credentials_file)
	tokens []string // files whose whole content is one secret (tandem's server token)
}

// New returns the policy for the well-known credentials plus extra names
// (api_key_env of presets and configured providers, configured secret
// variables); pass lists secret names the user lets child processes see.
func New(extra, pass []string) Policy {
	p := Policy{secret: map[string]bool{}, pass: map[string]bool{}}
	for _, n := range append(append([]string(nil), wellKnown...), extra...) {
		if n = strings.TrimSpace(n); n != "" {
			p.secret[n] = true
		}
	}
	for _, n := range pass {
		if n = strings.TrimSpace(n); n != "" {
			p.pass[n] = true
		}
	}
	return p
}

// Default is the policy with only the well-known names.
func Default() Policy { return New(nil, nil) }

func (p Policy) orDefault() Policy {
	if p.secret == nil {
		d := Default()
		d.files, d.tokens = p.files, p.tokens
		return d
	}
	return p
}

// WithFiles returns p that also redacts the secrets inside these
// credential files (a configured service-account key), as it does the file
// GOOGLE_APPLICATION_CREDENTIALS names.
func (p Policy) WithFiles(paths ...string) Policy {
	p.files = append(append([]string(nil), p.files...), paths...)
	return p
}

// WithTokenFiles returns p that also redacts the content of these files,
// each one secret as a whole: tandem's own server token, which a tool
// could otherwise print by searching the data folder.
func (p Policy) WithTokenFiles(paths ...string) Policy {
	p.tokens = append(append([]string(nil), p.tokens...), paths...)
	return p
}

// IsSecret reports whether a variable is kept from child processes.
func (p Policy) IsSecret(name string) bool {
	p = p.orDefault()
	return p.secret[name] && !p.pass[name]
}

// Names lists the secret names, sorted (for docs and doctor).
func (p Policy) Names() []string {
	p = p.orDefault()
	out := make([]string, 0, len(p.secret))
	for n := range p.secret {
		if !p.pass[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// ScrubEnv returns env (KEY=VALUE entries) without the secret variables.
func (p Policy) ScrubEnv(env []string) []string {
	p = p.orDefault()
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if p.IsSecret(k) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Redactor returns a Redactor for the values env gives the secret
// variables (passed-through ones included: they are still secrets, the
// user only lets a program use them).
func (p Policy) Redactor(env []string) *Redactor {
	p = p.orDefault()
	var vals []string
	seen := map[string]bool{}
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= minRedactLen && !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !p.secret[k] {
			continue
		}
		add(v)
		if credentialFiles[k] {
			for _, fv := range fileSecrets(v) {
				add(fv)
			}
		}
	}
	for _, f := range p.files {
		for _, fv := range fileSecrets(f) {
			add(fv)
		}
	}
	for _, f := range p.tokens {
		if data, _, err := regular.ReadCapped(f, 4096); err == nil {
			add(string(data))
		}
	}
	// Longest first, so a value containing another is replaced whole.
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	r := &Redactor{values: vals}
	if len(vals) > 0 {
		pairs := make([]string, 0, 2*len(vals))
		for _, v := range vals {
			pairs = append(pairs, v, Placeholder)
		}
		r.rep = strings.NewReplacer(pairs...)
	}
	for _, v := range vals {
		r.maxLen = max(r.maxLen, len(v))
	}
	return r
}

// Redactor replaces known secret values in text.
type Redactor struct {
	values []string
	rep    *strings.Replacer
	maxLen int
}

// Redact returns s with every known secret value replaced.
func (r *Redactor) Redact(s string) string {
	if r == nil || r.rep == nil {
		return s
	}
	return r.rep.Replace(s)
}

// Contains reports whether s holds a known secret value.
func (r *Redactor) Contains(s string) bool {
	if r == nil {
		return false
	}
	for _, v := range r.values {
		if strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// Empty reports whether there is nothing to redact.
func (r *Redactor) Empty() bool { return r == nil || r.rep == nil }

// Overlap is how many bytes a streaming caller must hold back so that a
// value split across two writes is still found (the longest value less
// one).
func (r *Redactor) Overlap() int {
	if r == nil || r.maxLen == 0 {
		return 0
	}
	return r.maxLen - 1
}

// credentialFiles name a file whose contents are the secret.
var credentialFiles = map[string]bool{"GOOGLE_APPLICATION_CREDENTIALS": true}

// fileSecrets returns the secret fields of a JSON credentials file (a
// Google service account or authorized-user file), and each line of a
// private key on its own, so the key is caught whether it is printed
// decoded or as the file's escaped JSON.
func fileSecrets(path string) []string {
	data, _, err := regular.ReadCapped(path, 1<<20)
	if err != nil {
		return nil
	}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"private_key", "private_key_id", "client_secret", "refresh_token"} {
		v, _ := doc[k].(string)
		if v == "" {
			continue
		}
		out = append(out, v)
		for _, line := range strings.Split(v, "\n") {
			if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
				out = append(out, line)
			}
		}
	}
	return out
}
