// Package catalog knows the models tandem has prices and limits for, and
// the provider presets (kind, default base URL, which environment variable
// holds the key). The data is an embedded JSON file so it can be updated
// without touching code.
package catalog

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

//go:embed models.json
var modelsJSON []byte

// Price is in US dollars per million tokens.
type Price struct {
	Input     float64 `json:"input"`
	Output    float64 `json:"output"`
	CacheRead float64 `json:"cache_read"`
	// CacheWrite is the price of a cache write with the default (5 min)
	// lifetime; CacheWrite1h that of a one-hour write (Anthropic), 0 when
	// the provider has none.
	CacheWrite   float64 `json:"cache_write"`
	CacheWrite1h float64 `json:"cache_write_1h,omitempty"`
	// LongContext is the tier a request's whole usage is priced at when
	// its prompt is longer than LongContext.Above tokens (OpenAI's 272K,
	// Anthropic's and Google's long-prompt tiers); nil: one rate.
	LongContext *Tier `json:"long_context,omitempty"`
}

// Tier is a long-context price tier: prices of a request whose prompt
// (input, cache reads and cache writes together) exceeds Above tokens.
// A price left 0 is the base price's.
type Tier struct {
	Above        int64   `json:"above"`
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cache_read,omitempty"`
	CacheWrite   float64 `json:"cache_write,omitempty"`
	CacheWrite1h float64 `json:"cache_write_1h,omitempty"`
}

// ModelInfo describes one model.
type ModelInfo struct {
	ID       string `json:"id"`
	Provider string `json:"provider"`
	Name     string `json:"name"`
	// APIID is the id to send when ID itself is not accepted by the API
	// (Anthropic has no undated "claude-sonnet-4").
	APIID           string   `json:"api_id,omitempty"`
	Aliases         []string `json:"aliases,omitempty"`
	ContextWindow   int64    `json:"context_window"`
	MaxOutputTokens int64    `json:"max_output_tokens"`
	// Price is nil when unknown; zero prices (local models) are known.
	Price          *Price `json:"price,omitempty"`
	SupportsImages bool   `json:"images"`
	// SupportsThinking: extended thinking / reasoning is available.
	SupportsThinking bool `json:"thinking"`
	// StructuredOutput: the first-party API constrains the answer to a
	// JSON Schema natively (Anthropic's output_config.format). Off by
	// default: many servers reject the field. Kinds whose every model
	// takes it (openai, gemini) do not need it set.
	StructuredOutput bool `json:"structured_output,omitempty"`
	// API names the provider's protocol the model needs when its kind
	// speaks more than one: "responses" for OpenAI models served only
	// through the Responses API (Codex, the -pro models).
	API string `json:"api,omitempty"`
	// SameAs names the provider whose model this is when a cloud serves
	// it (Bedrock and Vertex serve Anthropic's and Google's): limits,
	// prices and capabilities are that provider's entry's (filled in on
	// load, written once), and a bare model id resolves to that provider.
	SameAs string `json:"same_as,omitempty"`

	// Family groups a provider's models for its aliases (opus, sonnet,
	// haiku, fable; sol, luna; pro, flash).
	Family string `json:"family,omitempty"`
	// MaxInputTokens is the prompt limit when it is below the window.
	MaxInputTokens int64 `json:"max_input_tokens,omitempty"`
	// ThinkingMode says how the model thinks: "budget" (extended thinking
	// with a token budget, off unless asked), "adaptive" (the model
	// decides, steered by effort; a budget is sent as adaptive thinking),
	// "always" (adaptive and cannot be turned off), "effort" (OpenAI
	// reasoning steered by effort, "none" turns it off), "level"
	// (Gemini 3's thinking levels); "" when unknown or none.
	ThinkingMode string `json:"thinking_mode,omitempty"`
	// DefaultEffort is the effort the model uses when none is sent.
	DefaultEffort string `json:"default_effort,omitempty"`
	// Efforts lists the effort levels the model takes; empty: unknown or
	// none (an effort is then passed through unchecked).
	Efforts []string `json:"efforts,omitempty"`
	// ToolUse: the model calls tools (function calling).
	ToolUse         bool   `json:"tools,omitempty"`
	KnowledgeCutoff string `json:"knowledge_cutoff,omitempty"`
	Lifecycle
	// Source names where the row's facts were read, Checked when (a
	// date); Note says which facts could not be verified there.
	Source  string `json:"source,omitempty"`
	Checked string `json:"checked,omitempty"`
	Note    string `json:"note,omitempty"`
}

// ResponsesModels lists the ids (and aliases) of provider's models that
// need the Responses API.
func (c *Catalog) ResponsesModels(provider string) []string {
	var out []string
	for _, m := range c.models {
		if m.Provider == provider && m.API == "responses" {
			out = append(out, m.ID)
			out = append(out, m.Aliases...)
			if m.APIID != "" {
				out = append(out, m.APIID)
			}
		}
	}
	return out
}

// Preset is what tandem knows about a provider name without configuration.
type Preset struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // provider.Kind* value
	BaseURL string `json:"base_url"`
	// APIKeyEnv names the environment variable holding the key, "" if none.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// AuthTokenEnv names the bearer-token variable (Anthropic only).
	AuthTokenEnv string `json:"auth_token_env,omitempty"`
	// BaseURLEnv names a variable that overrides BaseURL.
	BaseURLEnv string `json:"base_url_env,omitempty"`
	// NeedsKey is false for local servers and for clouds whose
	// credentials come from their own chains (Bedrock, Vertex).
	NeedsKey bool `json:"needs_key"`
	// RegionEnv and ProjectEnv name variables for the cloud kinds' region
	// (Bedrock's AWS region, Vertex's location) and Google Cloud project.
	RegionEnv  string `json:"region_env,omitempty"`
	ProjectEnv string `json:"project_env,omitempty"`
	// HeaderEnv maps a request header to the variable that sets it
	// (OpenAI's OPENAI_ORG_ID and OPENAI_PROJECT_ID, which its SDK used
	// to read by itself); a header the config sets wins.
	HeaderEnv map[string]string `json:"header_env,omitempty"`
}

// Catalog is read-only after Load.
type Catalog struct {
	models   []ModelInfo
	presets  map[string]Preset
	order    []string // preset names in file order, for messages
	date     time.Time
	defaults map[string]string
	aliases  map[string]map[string]string
}

// Resolved is a model spec resolved to a provider and the id to send.
type Resolved struct {
	Provider string
	Model    string
	Info     *ModelInfo // nil when the catalog does not know the model
	// Alias is the short name the spec used (sonnet, best), if any.
	Alias string
}

type file struct {
	// Date is when the catalog's facts were last checked (YYYY-MM-DD).
	Date string `json:"date"`
	// Defaults names each provider's recommended model: the one tandem
	// picks when that provider's key is the one present.
	Defaults map[string]string `json:"defaults"`
	// Aliases maps, per provider, a short name (opus, sonnet, haiku,
	// best, fast) to the current model it stands for.
	Aliases map[string]map[string]string `json:"aliases"`
	Presets []Preset                     `json:"presets"`
	Models  []ModelInfo                  `json:"models"`
}

var load = sync.OnceValues(func() (*Catalog, error) { return parse(modelsJSON) })

// Load returns the embedded catalog, parsed once.
func Load() (*Catalog, error) { return load() }

func parse(data []byte) (*Catalog, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("model catalog: %w", err)
	}
	date, err := time.Parse(time.DateOnly, f.Date)
	if err != nil {
		return nil, fmt.Errorf("model catalog: its date %q is not YYYY-MM-DD", f.Date)
	}
	c := &Catalog{models: f.Models, presets: map[string]Preset{}, date: date, defaults: f.Defaults, aliases: f.Aliases}
	for _, p := range f.Presets {
		if _, dup := c.presets[p.Name]; dup {
			return nil, fmt.Errorf("model catalog: preset %q twice", p.Name)
		}
		c.presets[p.Name] = p
		c.order = append(c.order, p.Name)
	}
	if err := c.fillSameAs(); err != nil {
		return nil, err
	}
	if err := c.checkLifecycles(); err != nil {
		return nil, err
	}
	if err := c.checkAliases(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range f.Models {
		for _, id := range append([]string{m.ID}, m.Aliases...) {
			key := m.Provider + "/" + id
			if seen[key] {
				return nil, fmt.Errorf("model catalog: %s listed twice", key)
			}
			seen[key] = true
		}
	}
	return c, nil
}

// fillSameAs copies a hosted model's limits, prices and capabilities from
// its first-party entry.
func (c *Catalog) fillSameAs() error {
	for i := range c.models {
		m := &c.models[i]
		if m.SameAs == "" {
			continue
		}
		var src *ModelInfo
		for j := range c.models {
			if o := &c.models[j]; o.Provider == m.SameAs && o.ID == m.ID && o.SameAs == "" {
				src = o
			}
		}
		if src == nil {
			return fmt.Errorf("model catalog: %s/%s is the same as %s/%s, which is not listed", m.Provider, m.ID, m.SameAs, m.ID)
		}
		hosted := *src
		hosted.Provider, hosted.APIID, hosted.Aliases, hosted.SameAs = m.Provider, m.APIID, m.Aliases, m.SameAs
		hosted.Lifecycle = hostedLifecycle(src, m)
		if m.Name != "" {
			hosted.Name = m.Name
		}
		if m.Note != "" {
			hosted.Note = m.Note
		}
		*m = hosted
	}
	return nil
}

// Models returns a copy of all known models.
func (c *Catalog) Models() []ModelInfo {
	return append([]ModelInfo(nil), c.models...)
}

// Preset returns the preset for a provider name.
func (c *Catalog) Preset(name string) (Preset, bool) {
	p, ok := c.presets[strings.ToLower(name)]
	return p, ok
}

// Presets returns the preset names in catalog order.
func (c *Catalog) Presets() []string { return append([]string(nil), c.order...) }

// Resolve turns "provider/model" or a bare model id into a Resolved.
// Everything after the first slash is the model id, so OpenRouter ids such
// as "openrouter/anthropic/claude-sonnet-4.5" work. A provider the catalog
// has no preset for is accepted (it may be configured by the user); its
// model gets the catalog's info when the id is known under one provider
// only, so a proxy named "work" still prices "work/claude-sonnet-4-5".
func (c *Catalog) Resolve(spec string) (Resolved, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Resolved{}, fmt.Errorf("empty model: %s", c.howTo())
	}
	if prov, id, ok := strings.Cut(spec, "/"); ok {
		if prov == "" || id == "" {
			return Resolved{}, fmt.Errorf("model %q: %s", spec, c.howTo())
		}
		r := Resolved{Provider: prov, Model: id}
		if full, ok := c.aliases[prov][id]; ok {
			r.Alias, id = id, full
			r.Model = id
		}
		if info, sendID := c.find(prov, id); info != nil {
			r.Info, r.Model = info, sendID
		} else if _, preset := c.presets[prov]; !preset {
			if matches := c.byID(id); len(matches) == 1 {
				r.Info = matches[0].info
			}
		}
		return r, nil
	}
	matches := c.byID(spec)
	if len(matches) == 0 {
		prov, _, err := c.alias(spec)
		if err != nil {
			return Resolved{}, err
		}
		if prov != "" {
			return c.Resolve(prov + "/" + spec)
		}
	}
	switch len(matches) {
	case 0:
		return Resolved{}, fmt.Errorf("unknown model %q: %s", spec, c.howTo())
	case 1:
		m := matches[0]
		return Resolved{Provider: m.info.Provider, Model: m.sendID, Info: m.info}, nil
	default:
		var opts []string
		for _, m := range matches {
			opts = append(opts, m.info.Provider+"/"+spec)
		}
		return Resolved{}, fmt.Errorf("model %q is offered by several providers; write one of %s",
			spec, strings.Join(opts, ", "))
	}
}

type match struct {
	info   *ModelInfo
	sendID string
}

// byID finds the models named id. When the model's own provider lists it,
// the clouds' copies (SameAs) are left out, so "claude-sonnet-4-5" is
// Anthropic's and a proxy serving it is priced as Anthropic's.
func (c *Catalog) byID(id string) []match {
	all := c.byIDAll(id)
	var first []match
	for _, m := range all {
		if m.info.SameAs == "" {
			first = append(first, m)
		}
	}
	if len(first) > 0 {
		return first
	}
	return all
}

// find looks a model up under one provider by id or alias.
func (c *Catalog) find(provider, id string) (*ModelInfo, string) {
	for _, m := range c.byIDAll(id) {
		if m.info.Provider == provider {
			return m.info, m.sendID
		}
	}
	return nil, ""
}

func (c *Catalog) byIDAll(id string) []match {
	var out []match
	for i := range c.models {
		m := &c.models[i]
		switch {
		case m.ID == id:
			send := id
			if m.APIID != "" {
				send = m.APIID
			}
			out = append(out, match{m, send})
		case contains(m.Aliases, id):
			out = append(out, match{m, id})
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (c *Catalog) howTo() string {
	names := append([]string(nil), c.order...)
	sort.Strings(names)
	return fmt.Sprintf("write the model as provider/model, e.g. %s, %s or ollama/llama3.2, or a short name such as sonnet, opus, haiku, best or fast (known providers: %s; other names work when configured)",
		"anthropic/"+c.defaults["anthropic"], "openai/"+c.defaults["openai"], strings.Join(names, ", "))
}
