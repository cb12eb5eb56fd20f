package app

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
	"github.com/tandem-agent/tandem/internal/provider/providers"
)

// models turns "provider/model" specs into ready adapters, caching one
// adapter per provider settings so connections are reused across turns.
type models struct {
	cat    *catalog.Catalog
	getenv func(string) string
	mu     sync.Mutex
	cache  map[string]provider.Provider
	// custom are providers given in code (Options.Providers), by name;
	// they win over presets and config entries of the same name.
	custom map[string]provider.Provider
	// install gives the claude-code-compat transport its install id; nil
	// in tests that build models alone (a random id per adapter then).
	install *installID
	// clock is "now" for lifecycle checks; nil: the real time.
	clock func() time.Time
}

func newModels(cat *catalog.Catalog, getenv func(string) string) *models {
	return &models{cat: cat, getenv: getenv, cache: map[string]provider.Provider{}}
}

// resolver returns an agent.Resolver that reads provider settings from c.
func (m *models) resolver(c *config.Config) agent.Resolver {
	return agent.ResolverFunc(func(spec string) (agent.Model, error) {
		if spec == "" {
			spec = m.defaultFromEnv()
		}
		if spec == "" {
			return agent.Model{}, fmt.Errorf("no model chosen: pass --model provider/model (e.g. anthropic/%s), set \"model\" in tandem's config, or set ANTHROPIC_API_KEY or OPENAI_API_KEY", m.cat.Default("anthropic"))
		}
		res, notice, err := m.resolveChecked(spec)
		if err != nil {
			return agent.Model{}, err
		}
		p, given := m.custom[res.Provider] // given in code: serves what its owner says
		if !given {
			pcfg, err := m.providerConfig(res.Provider, c)
			if err != nil {
				return agent.Model{}, err
			}
			var entry config.Provider
			if c != nil {
				entry = c.Providers[res.Provider]
			}
			if err := m.checkServes(res, pcfg, entry); err != nil {
				return agent.Model{}, err
			}
			if p, err = m.adapter(pcfg); err != nil {
				return agent.Model{}, err
			}
		}
		info := res.Info
		priced := info
		if c != nil {
			if pr := c.Providers[res.Provider].PriceFor(res.Model); pr != nil {
				priced = &catalog.ModelInfo{Price: pr}
			}
		}
		model := agent.Model{Provider: p, ID: res.Model, Notice: notice}
		if priced != nil && priced.Price != nil { // else unknown: no costs, and no budget
			model.Cost = func(u message.Usage) *float64 { return catalog.Cost(priced, u) }
		}
		if info != nil {
			model.MaxOutput = info.MaxOutputTokens
			model.ContextWindow = info.ContextWindow
			// The clouds' Claude (same_as) is not assumed to take the
			// first-party API's structured-output field.
			model.NativeOutput = info.StructuredOutput && info.SameAs == ""
			model.ThinkingMode = info.ThinkingMode
			model.NoImages = !info.SupportsImages
		}
		if c != nil {
			if w := c.Providers[res.Provider].ContextWindowFor(res.Model); w > 0 {
				model.ContextWindow = w
			}
			if on, set := c.Providers[res.Provider].StructuredOutputFor(res.Model); set {
				model.NativeOutput = on
			}
		}
		if model.ThinkingBudget, model.Effort, err = configuredThinking(c, info); err != nil {
			return agent.Model{}, err
		}
		return model, nil
	})
}

// providerConfig layers, weakest first: the catalog's preset, the config
// files' entry, then the provider's environment variables.
func (m *models) providerConfig(name string, c *config.Config) (provider.Config, error) {
	pc := provider.Config{Name: name}
	preset, known := m.cat.Preset(name)
	if known {
		pc.Kind, pc.BaseURL = preset.Kind, preset.BaseURL
	}
	var entry config.Provider
	var configured bool
	if c != nil {
		entry, configured = c.Providers[name]
	}
	if !known && !configured {
		return pc, fmt.Errorf("unknown provider %q: add it under \"providers\" in tandem's config with kind and base_url, or use one of: %s", name, strings.Join(m.cat.Presets(), ", "))
	}
	if entry.Disabled {
		return pc, fmt.Errorf("provider %q is disabled in tandem's config", name)
	}
	if entry.Kind != "" {
		pc.Kind = entry.Kind
	}
	if entry.BaseURL != "" {
		pc.BaseURL = entry.BaseURL
	}
	pc.Headers = entry.Headers
	pc.Transport = entry.Transport
	if pc.ClaudeCodeCompat() && pc.Kind != provider.KindAnthropic {
		// A preset's kind (vertex, ...) the config file could not see.
		return pc, fmt.Errorf("provider %q: \"transport\": \"claude-code-compat\" needs kind anthropic, and this provider is kind %s", name, pc.Kind)
	}
	if pc.ClaudeCodeCompat() && m.install != nil {
		id, err := m.install.get()
		if err != nil {
			return pc, fmt.Errorf("provider %q: %w", name, err)
		}
		pc.InstallID = id
	}
	var err error
	if pc.FirstByteTimeout, pc.IdleTimeout, err = entry.Timeouts(); err != nil {
		return pc, fmt.Errorf("provider %q: %w", name, err) // validated on load; kept for callers that skip it
	}
	switch {
	case entry.APIKey != "":
		pc.APIKey = entry.APIKey
	case entry.APIKeyEnv != "":
		pc.APIKey = m.getenv(entry.APIKeyEnv)
		if pc.APIKey == "" {
			return pc, fmt.Errorf("provider %q: its api_key_env %s is not set in the environment", name, entry.APIKeyEnv)
		}
	}
	pc.Cloud = provider.Cloud{Region: entry.Region, Project: entry.Project, CredentialsFile: m.expandHome(entry.CredentialsFile), Profile: entry.Profile}
	if known {
		m.applyEnv(&pc, preset)
	}
	if pc.Cloud.Region != "" && !config.CloudRegion(pc.Cloud.Region) {
		return pc, fmt.Errorf("provider %q: region %q is not a region name (e.g. us-east-1, us-east5, global)", name, pc.Cloud.Region)
	}
	if pc.Kind == provider.KindOpenAI {
		pc.ResponsesModels = m.cat.ResponsesModels(name)
	}
	return pc, nil
}

func (m *models) applyEnv(pc *provider.Config, p catalog.Preset) {
	if p.BaseURLEnv != "" {
		if v := m.getenv(p.BaseURLEnv); v != "" {
			pc.BaseURL = v
		}
	}
	if p.APIKeyEnv != "" && pc.APIKey == "" {
		pc.APIKey = m.getenv(p.APIKeyEnv)
	}
	if p.AuthTokenEnv != "" && pc.APIKey == "" {
		pc.AuthToken = m.getenv(p.AuthTokenEnv)
	}
	// The config file's region and project win over the environment's,
	// which are the cloud tools' general defaults.
	if p.RegionEnv != "" && pc.Cloud.Region == "" {
		pc.Cloud.Region = m.getenv(p.RegionEnv)
	}
	if p.ProjectEnv != "" && pc.Cloud.Project == "" {
		pc.Cloud.Project = m.getenv(p.ProjectEnv)
	}
	copied := false
	for header, env := range p.HeaderEnv {
		v := m.getenv(env)
		if v == "" || provider.HasHeader(pc.Headers, header) {
			continue
		}
		if !copied { // the headers map is the config's own
			pc.Headers, copied = maps.Clone(pc.Headers), true
			if pc.Headers == nil {
				pc.Headers = map[string]string{}
			}
		}
		pc.Headers[header] = v
	}
}

// expandHome turns a leading "~/" into the home folder.
func (m *models) expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home := m.getenv("HOME"); home != "" {
			return filepath.Join(home, rest)
		}
	}
	return path
}

func (m *models) adapter(pc provider.Config) (provider.Provider, error) {
	key := fmt.Sprintf("%s|%s|%s|%s|%s|%v|%v|%v|%+v|%s", pc.Name, pc.Kind, pc.BaseURL, pc.APIKey, pc.AuthToken, pc.Headers, pc.FirstByteTimeout, pc.IdleTimeout, pc.Cloud, pc.Transport)
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.cache[key]; ok {
		return p, nil
	}
	p, err := providers.New(pc)
	if err != nil {
		return nil, err
	}
	m.cache[key] = p
	return p, nil
}

// resolveChecked resolves spec through the catalog (a bare best or fast
// is the key's provider's) and judges the model's lifecycle today: a
// retired model is refused here, before any request.
func (m *models) resolveChecked(spec string) (catalog.Resolved, string, error) {
	if (spec == "best" || spec == "fast") && !strings.Contains(spec, "/") {
		prov := m.keyProvider()
		if prov == "" {
			return catalog.Resolved{}, "", fmt.Errorf("%q needs a provider: write anthropic/%s, openai/%s or gemini/%s, or set that provider's API key", spec, spec, spec, spec)
		}
		spec = prov + "/" + spec
	}
	res, err := m.cat.Resolve(spec)
	if err != nil {
		return res, "", err
	}
	notice, err := m.cat.Check(res, m.now())
	return res, notice, err
}

// keyProvider is the first provider, in tandem's order of preference,
// whose key is in the environment.
func (m *models) keyProvider() string {
	switch {
	case m.getenv("ANTHROPIC_API_KEY") != "" || m.getenv("ANTHROPIC_AUTH_TOKEN") != "":
		return "anthropic"
	case m.getenv("OPENAI_API_KEY") != "":
		return "openai"
	case m.getenv("GEMINI_API_KEY") != "":
		return "gemini"
	}
	return ""
}

// defaultFromEnv picks a model for a user who set only an API key: the
// catalog's recommended model of that key's provider.
func (m *models) defaultFromEnv() string {
	if v := m.getenv("TANDEM_MODEL"); v != "" {
		return v
	}
	if prov := m.keyProvider(); prov != "" && m.cat.Default(prov) != "" {
		return prov + "/" + m.cat.Default(prov)
	}
	return ""
}

func (m *models) now() time.Time {
	if m.clock != nil {
		return m.clock()
	}
	return time.Now()
}

// ModelLifecycle judges spec on today's date as a session would: err when
// the model is retired (or does not resolve), a notice when it is legacy
// or deprecated, neither when it is active or unknown to the catalog.
func (a *App) ModelLifecycle(spec string) (notice string, err error) {
	_, notice, err = a.models.resolveChecked(spec)
	return notice, err
}

// configuredThinking is the thinking budget and effort tandem's config
// gives a model (info nil: unknown to the catalog), as every runtime
// applies them: none for a model that does not think, and an effort the
// model does not take is an error naming the fix.
func configuredThinking(c *config.Config, info *catalog.ModelInfo) (budget int64, effort string, err error) {
	if c == nil || (info != nil && !info.SupportsThinking) {
		return 0, "", nil
	}
	if info != nil && c.Effort != "" && len(info.Efforts) > 0 && !slices.Contains(info.Efforts, c.Effort) {
		return 0, "", fmt.Errorf("model %s takes effort %s, not %q: change \"effort\" in tandem's config", info.ID, strings.Join(info.Efforts, ", "), c.Effort)
	}
	return c.ThinkingBudget, c.Effort, nil
}
