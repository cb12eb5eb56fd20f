package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/projectfile"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/strictjson"
)

// Config is the merged configuration. Sections owned by other packages stay
// raw here and are decoded by their owners, which validate them with the
// same file-and-field error style.
type Config struct {
	Schema     string `json:"$schema,omitempty"`
	Model      string `json:"model,omitempty"`       // default "provider/model"
	SmallModel string `json:"small_model,omitempty"` // for summaries (WebFetch prompts, titles)
	// FallbackModels ("provider/model") are tried in order when the model
	// keeps failing after retries (overloaded, server errors, not found).
	FallbackModels []string      `json:"fallback_models,omitempty"`
	Runtime        runtimes.Name `json:"runtime,omitempty"`
	Mode           string        `json:"permission_mode,omitempty"`
	MaxTurns       int           `json:"max_turns,omitempty"`
	// MaxBudgetUSD is the --max-budget-usd of turns that give none. Layers
	// keep the smallest, so a project can only tighten it.
	MaxBudgetUSD float64 `json:"max_budget_usd,omitempty"`
	// ThinkingBudget > 0 turns on extended thinking with that many tokens
	// (MAX_THINKING_TOKENS in the environment, as Claude Code reads it).
	ThinkingBudget int64 `json:"thinking_budget,omitempty"`
	// Effort is low, medium, high, xhigh or max where the model takes it
	// (the catalog's efforts; a model that does not is refused it).
	Effort    string              `json:"effort,omitempty"`
	Providers map[string]Provider `json:"providers,omitempty"`
	Tools     Tools               `json:"tools,omitempty"`
	// Secrets tunes which environment variables tool processes (Bash,
	// MCP stdio servers, hooks) never inherit; see internal/secrets.
	Secrets Secrets `json:"secrets,omitempty"`

	Permissions json.RawMessage `json:"permissions,omitempty"` // permission.Config
	MCPServers  json.RawMessage `json:"mcpServers,omitempty"`  // mcp.Servers
	ClaudeCode  json.RawMessage `json:"claude_code,omitempty"` // claudecode.Config
	// Hooks is read only to refuse it: tandem's hooks live under
	// "permissions.hooks" (Claude Code's settings files keep theirs at the
	// top level). Accepting it here would define hooks that never run.
	Hooks       json.RawMessage `json:"hooks,omitempty"`
	Compaction  json.RawMessage `json:"compaction,omitempty"`  // compact.Config (docs/compaction.md)
	Checkpoints json.RawMessage `json:"checkpoints,omitempty"` // checkpoint.Config (rewind)
	Agents      json.RawMessage `json:"agents,omitempty"`      // subagent.ParseConfig: {name: definition}
	Subagents   json.RawMessage `json:"subagents,omitempty"`   // subagent.Settings
	Skills      json.RawMessage `json:"skills,omitempty"`      // skills settings (listing budget)
	Sandbox     json.RawMessage `json:"sandbox,omitempty"`     // sandbox.ParseLayers (docs/sandbox.md)
	LSP         *LSP            `json:"lsp,omitempty"`         // language servers (lsp.go, docs/lsp.md)
	// EnableAllProjectMcpServers lets a project's .mcp.json servers start
	// without asking; only honoured from the user file.
	EnableAllProjectMcpServers bool     `json:"enableAllProjectMcpServers,omitempty"`
	EnabledMcpjsonServers      []string `json:"enabledMcpjsonServers,omitempty"`
	DisabledMcpjsonServers     []string `json:"disabledMcpjsonServers,omitempty"`
	// Database is where sessions are stored: a SQLite file path,
	// sqlite:PATH, or postgres://... (internal/store/storeopen); empty:
	// tandem.db in the data folder. Read only from the user file
	// (TANDEM_DATABASE_URL and `serve --database` override it).
	Database string `json:"database,omitempty"`
	// Bridges are the chat bridges (`tandem bridge`, `tandem serve`):
	// user file only, see bridges.go.
	Bridges json.RawMessage `json:"bridges,omitempty"`

	// Telemetry is OpenTelemetry export (telemetry.go; user file only).
	Telemetry *Telemetry `json:"telemetry,omitempty"`

	// Serve is the team server's section (serve.go): OpenID Connect
	// sign-in and per-user limits. Read only from the user file.
	Serve json.RawMessage `json:"serve,omitempty"`

	// Sources lists the files that were read, weakest first.
	Sources []string `json:"-"`
	// Layers keeps each file's own settings, weakest first, for sections
	// whose owners must know which layer said what (a project file may not
	// loosen what the user's file denies).
	Layers []Layer `json:"-"`
	// sectionSources remembers which file each raw section came from, so
	// their owners can name it in errors.
	sectionSources map[string]string
}

// Provider configures one LLM provider entry.
type Provider struct {
	Kind      string            `json:"kind,omitempty"` // one of provider.Kinds
	BaseURL   string            `json:"base_url,omitempty"`
	APIKey    string            `json:"api_key,omitempty"`
	APIKeyEnv string            `json:"api_key_env,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Disabled  bool              `json:"disabled,omitempty"`
	// ContextWindow overrides the catalog's context window (tokens) for
	// every model of this provider; Models overrides it per model id.
	ContextWindow int64                    `json:"context_window,omitempty"`
	Models        map[string]ProviderModel `json:"models,omitempty"`
	// FirstByteTimeout and IdleTimeout bound a streamed call (Go durations;
	// "0s" turns one off; empty: the provider package's defaults). See
	// Provider.Timeouts.
	FirstByteTimeout string `json:"first_byte_timeout,omitempty"`
	IdleTimeout      string `json:"idle_timeout,omitempty"`
	// Region, Project, CredentialsFile and Profile are the cloud kinds'
	// (see provider.Cloud): Bedrock's AWS region and profile, Vertex's
	// location, project and Google credentials file.
	Region          string `json:"region,omitempty"`
	Project         string `json:"project,omitempty"`
	CredentialsFile string `json:"credentials_file,omitempty"`
	Profile         string `json:"profile,omitempty"`
	// Transport is one of provider.Transports, for kind anthropic only.
	Transport string `json:"transport,omitempty"`
}

// ProviderModel overrides what the catalog says about one model.
type ProviderModel struct {
	ContextWindow int64 `json:"context_window,omitempty"`
	// StructuredOutput says whether the model accepts the protocol's
	// native structured-output field (response_format for an
	// OpenAI-compatible server, output_config.format for Anthropic);
	// unset keeps the catalog's answer (off for models it does not list).
	StructuredOutput *bool `json:"structured_output,omitempty"`
	// Price replaces the catalog's prices for the model (a model it does
	// not list, a local one at zero): costs, and --max-budget-usd, need one.
	Price *catalog.Price `json:"price,omitempty"`
}

// PriceFor is the configured price of model id, nil if none.
func (p Provider) PriceFor(id string) *catalog.Price {
	if m, ok := p.Models[id]; ok {
		return m.Price
	}
	return nil
}

// StructuredOutputFor is the configured structured-output capability of
// model id, and whether the config sets one.
func (p Provider) StructuredOutputFor(id string) (on, set bool) {
	if m, ok := p.Models[id]; ok && m.StructuredOutput != nil {
		return *m.StructuredOutput, true
	}
	return false, false
}

// ContextWindowFor is the configured window for model id, 0 if none.
func (p Provider) ContextWindowFor(id string) int64 {
	if m, ok := p.Models[id]; ok && m.ContextWindow > 0 {
		return m.ContextWindow
	}
	return p.ContextWindow
}

// Timeouts parses the stream timeouts: 0 for unset (the default applies),
// negative for "off" ("0s" in the file).
func (p Provider) Timeouts() (firstByte, idle time.Duration, err error) {
	parse := func(field, v string) (time.Duration, error) {
		if v == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("%s: %q is not a duration; write e.g. \"60s\" or \"2m\" (\"0s\" turns it off)", field, v)
		}
		if d == 0 {
			return -1, nil
		}
		return d, nil
	}
	if firstByte, err = parse("first_byte_timeout", p.FirstByteTimeout); err != nil {
		return 0, 0, err
	}
	idle, err = parse("idle_timeout", p.IdleTimeout)
	return firstByte, idle, err
}

// Tools configures built-in tools.
type Tools struct {
	WebFetch  WebFetch  `json:"web_fetch,omitempty"`
	WebSearch WebSearch `json:"web_search,omitempty"`
}

// Secrets names more secret variables and, in the user file only, the
// credentials tool processes may inherit after all.
type Secrets struct {
	Env     []string `json:"env,omitempty"`
	PassEnv []string `json:"pass_env,omitempty"`
}

// WebFetch settings.
type WebFetch struct {
	AllowPrivate bool `json:"allow_private,omitempty"`
}

// WebSearch settings.
type WebSearch struct {
	Backend   string `json:"backend,omitempty"` // brave | tavily
	APIKeyEnv string `json:"api_key_env,omitempty"`
}

// Layer is one file's settings.
type Layer struct {
	File  string
	Scope string // user | project
	*Config
}

// Error is a configuration problem in one file.
type Error struct {
	File  string
	Field string
	Line  int
	Msg   string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("config %s: field %q: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("config %s: %s", loc, e.Msg)
}

// SectionSource names the file a raw section came from ("" if none).
func (c *Config) SectionSource(key string) string { return c.sectionSources[key] }

// Load reads the user file then the project file (either may be missing)
// and merges them, project over user. Environment and flags are applied by
// the caller with ApplyEnv and its own overrides.
func Load(userFile, projectFile string) (*Config, error) {
	var layers []Layer
	for _, f := range []string{userFile, projectFile} {
		if f == "" {
			continue
		}
		layer, err := readFile(f, f == projectFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if f == projectFile {
			if err := checkUserOnly(f, layer); err != nil {
				return nil, err
			}
		}
		scope := "user"
		if f == projectFile {
			scope = "project"
		}
		layers = append(layers, Layer{File: f, Scope: scope, Config: layer})
	}
	return FromLayers(layers), nil
}

// FromLayers merges decoded layers, weakest first: what Load returns for
// them. The folder-trust check uses it to merge a project layer from which
// it removed what an untrusted folder may not set.
func FromLayers(layers []Layer) *Config {
	c := &Config{sectionSources: map[string]string{}}
	for _, l := range layers {
		c.merge(l.Config, l.File)
		c.Sources = append(c.Sources, l.File)
		c.Layers = append(c.Layers, l)
	}
	return c
}

// readFile reads one config file; a project's (CWD/.tandem/config.json,
// see ProjectFile) through projectfile, so a link out of the repository, a
// FIFO or an oversized file is refused with a message naming it.
func readFile(path string, project bool) (*Config, error) {
	var data []byte
	var err error
	if project {
		data, err = projectfile.Read(filepath.Dir(filepath.Dir(path)), path, projectfile.SettingsLimit)
	} else {
		data, err = projectfile.ReadOwn(path, projectfile.SettingsLimit)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	var c Config
	if err := strictjson.Check(data, &c); err != nil {
		// encoding/json would read a case variant as the field and let a
		// duplicate override the first: the trust check and the loader
		// could then disagree about what the file sets.
		var se *strictjson.Error
		errors.As(err, &se)
		return nil, &Error{File: path, Field: se.Field(), Msg: err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, decodeError(path, data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		// The decoder reads one value; anything after it (a second object,
		// a stray brace from a bad merge) would be dropped unseen.
		off := dec.InputOffset()
		rest := bytes.TrimLeft(data[off:], " \t\r\n")
		line := lineOf(data, int64(len(data)-len(rest)))
		return nil, &Error{File: path, Line: line, Msg: "unexpected text after the JSON object: a config file holds one object; remove what follows it"}
	}
	if err := c.validate(path); err != nil {
		return nil, err
	}
	return &c, nil
}

func decodeError(path string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &Error{File: path, Line: lineOf(data, se.Offset), Msg: "invalid JSON: " + se.Error()}
	case errors.As(err, &te):
		return &Error{File: path, Line: lineOf(data, te.Offset), Field: te.Field,
			Msg: fmt.Sprintf("must be %s, not %s", te.Type.String(), te.Value)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &Error{File: path, Field: name, Msg: "unknown setting (check the spelling; the schema is docs/config.schema.json)"}
	}
	return &Error{File: path, Msg: err.Error()}
}

func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// CheckBaseURL accepts an absolute http:// or https:// URL with a host.
func CheckBaseURL(v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not a base URL: write it as http://host[:port][/path] or https://host[:port][/path]", v)
	}
	return nil
}

func (c *Config) validate(path string) error {
	if len(c.Hooks) > 0 {
		return &Error{File: path, Field: "hooks", Msg: `tandem reads hooks from "permissions": {"hooks": {...}}; move this object there (Claude Code's .claude/settings.json keeps "hooks" at the top level)`}
	}
	if c.Runtime != "" {
		if _, err := runtimes.Parse(string(c.Runtime)); err != nil {
			return &Error{File: path, Field: "runtime", Msg: err.Error()}
		}
	}
	if err := CheckEffort(c.Effort); err != nil {
		return &Error{File: path, Field: "effort", Msg: err.Error()}
	}
	if c.ThinkingBudget < 0 || (c.ThinkingBudget > 0 && c.ThinkingBudget < 1024) {
		return &Error{File: path, Field: "thinking_budget", Msg: "use 0 (off) or at least 1024 tokens"}
	}
	if c.MaxTurns < 0 {
		return &Error{File: path, Field: "max_turns", Msg: "must be 0 (no limit) or more"}
	}
	if c.MaxBudgetUSD < 0 {
		return &Error{File: path, Field: "max_budget_usd", Msg: "must be an amount in US dollars, e.g. 2.5 (0: no limit)"}
	}
	if c.Model != "" && strings.HasSuffix(c.Model, "/") {
		return &Error{File: path, Field: "model", Msg: "write provider/model, e.g. anthropic/claude-sonnet-5-5"}
	}
	for i, m := range c.FallbackModels {
		if err := CheckModelSpec(m); err != nil {
			return &Error{File: path, Field: fmt.Sprintf("fallback_models[%d]", i), Msg: err.Error()}
		}
	}
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := c.Providers[n]
		field := "providers." + n
		if p.Kind != "" && !provider.ValidKind(p.Kind) {
			return &Error{File: path, Field: field + ".kind", Msg: fmt.Sprintf("%q is not a provider kind; use one of %s", p.Kind, strings.Join(provider.Kinds(), ", "))}
		}
		if !provider.ValidTransport(p.Transport) {
			return &Error{File: path, Field: field + ".transport", Msg: fmt.Sprintf("%q is not a transport; use %s", p.Transport, provider.TransportList())}
		}
		if p.Transport == provider.TransportClaudeCodeCompat && p.Kind != "" && p.Kind != provider.KindAnthropic {
			return &Error{File: path, Field: field + ".transport", Msg: fmt.Sprintf("claude-code-compat is a request shape of the Anthropic Messages API; set \"kind\": \"anthropic\" (this provider is kind %s)", p.Kind)}
		}
		if p.BaseURL != "" {
			if err := CheckBaseURL(p.BaseURL); err != nil {
				return &Error{File: path, Field: field + ".base_url", Msg: err.Error()}
			}
		}
		if p.APIKey != "" && p.APIKeyEnv != "" {
			return &Error{File: path, Field: field, Msg: "set api_key or api_key_env, not both"}
		}
		if err := checkCloud(p); err != nil {
			sub, msg, _ := strings.Cut(err.Error(), ": ")
			return &Error{File: path, Field: field + "." + sub, Msg: msg}
		}
		if p.ContextWindow < 0 {
			return &Error{File: path, Field: field + ".context_window", Msg: "must be a number of tokens, e.g. 32768"}
		}
		for id, m := range p.Models {
			if m.ContextWindow < 0 {
				return &Error{File: path, Field: field + ".models." + id + ".context_window", Msg: "must be a number of tokens, e.g. 32768"}
			}
			if pr := m.Price; pr != nil && (pr.Input < 0 || pr.Output < 0 || pr.CacheRead < 0 || pr.CacheWrite < 0) {
				return &Error{File: path, Field: field + ".models." + id + ".price", Msg: "prices are US dollars per million tokens and cannot be negative, e.g. {\"input\": 3, \"output\": 15}"}
			}
		}
		if _, _, err := p.Timeouts(); err != nil {
			sub, msg, _ := strings.Cut(err.Error(), ": ")
			return &Error{File: path, Field: field + "." + sub, Msg: msg}
		}
	}
	switch c.Tools.WebSearch.Backend {
	case "", "brave", "tavily":
	default:
		return &Error{File: path, Field: "tools.web_search.backend", Msg: fmt.Sprintf("%q is not a search backend; use brave or tavily", c.Tools.WebSearch.Backend)}
	}
	return nil
}

// merge lays o over c: scalars replace when set, provider entries merge by
// name, raw sections replace whole (their owners merge layers themselves
// when that matters, e.g. permission rules from several files).
func (c *Config) merge(o *Config, src string) {
	if o.Model != "" {
		c.Model = o.Model
	}
	if o.SmallModel != "" {
		c.SmallModel = o.SmallModel
	}
	if len(o.FallbackModels) > 0 {
		c.FallbackModels = o.FallbackModels // a list replaces whole: order matters
	}
	if o.Runtime != "" {
		c.Runtime = o.Runtime
	}
	if o.Mode != "" {
		c.Mode = o.Mode
	}
	if o.ThinkingBudget != 0 {
		c.ThinkingBudget = o.ThinkingBudget
	}
	if o.Effort != "" {
		c.Effort = o.Effort
	}
	if o.MaxTurns != 0 {
		c.MaxTurns = o.MaxTurns
	}
	if o.MaxBudgetUSD > 0 && (c.MaxBudgetUSD == 0 || o.MaxBudgetUSD < c.MaxBudgetUSD) {
		c.MaxBudgetUSD = o.MaxBudgetUSD
	}
	if o.Database != "" {
		c.Database = o.Database
	}
	c.mergeTelemetry(o)
	if o.EnableAllProjectMcpServers {
		c.EnableAllProjectMcpServers = true
	}
	for n, p := range o.Providers {
		if c.Providers == nil {
			c.Providers = map[string]Provider{}
		}
		c.Providers[n] = mergeProvider(c.Providers[n], p)
	}
	c.Secrets.Env = append(c.Secrets.Env, o.Secrets.Env...)
	c.Secrets.PassEnv = append(c.Secrets.PassEnv, o.Secrets.PassEnv...)
	if o.Tools.WebFetch.AllowPrivate {
		c.Tools.WebFetch.AllowPrivate = true
	}
	if o.Tools.WebSearch.Backend != "" {
		c.Tools.WebSearch = o.Tools.WebSearch
	}
	if o.LSP != nil {
		c.LSP = mergeLSP(c.LSP, o.LSP)
		c.sectionSources["lsp"] = src
	}
	for _, sec := range []struct {
		key      string
		dst, src *json.RawMessage
	}{
		{"permissions", &c.Permissions, &o.Permissions},
		{"mcpServers", &c.MCPServers, &o.MCPServers},
		{"claude_code", &c.ClaudeCode, &o.ClaudeCode},
		{"compaction", &c.Compaction, &o.Compaction},
		{"checkpoints", &c.Checkpoints, &o.Checkpoints},
		{"bridges", &c.Bridges, &o.Bridges},
		{"agents", &c.Agents, &o.Agents},
		{"subagents", &c.Subagents, &o.Subagents},
		{"skills", &c.Skills, &o.Skills},
		{"sandbox", &c.Sandbox, &o.Sandbox},
		{"serve", &c.Serve, &o.Serve},
	} {
		if len(*sec.src) > 0 {
			*sec.dst = *sec.src
			c.sectionSources[sec.key] = src
		}
	}
}

func mergeProvider(a, b Provider) Provider {
	if b.Kind != "" {
		a.Kind = b.Kind
	}
	if b.BaseURL != "" {
		a.BaseURL = b.BaseURL
	}
	if b.APIKey != "" || b.APIKeyEnv != "" {
		a.APIKey, a.APIKeyEnv = b.APIKey, b.APIKeyEnv
	}
	for k, v := range b.Headers {
		if a.Headers == nil {
			a.Headers = map[string]string{}
		}
		a.Headers[k] = v
	}
	a.Disabled = b.Disabled
	for _, f := range []struct{ dst, src *string }{
		{&a.Region, &b.Region}, {&a.Project, &b.Project}, {&a.CredentialsFile, &b.CredentialsFile}, {&a.Profile, &b.Profile},
	} {
		if *f.src != "" {
			*f.dst = *f.src
		}
	}
	if b.ContextWindow > 0 {
		a.ContextWindow = b.ContextWindow
	}
	for id, m := range b.Models {
		if a.Models == nil {
			a.Models = map[string]ProviderModel{}
		}
		a.Models[id] = m
	}
	if b.FirstByteTimeout != "" {
		a.FirstByteTimeout = b.FirstByteTimeout
	}
	if b.IdleTimeout != "" {
		a.IdleTimeout = b.IdleTimeout
	}
	if b.Transport != "" {
		a.Transport = b.Transport
	}
	return a
}

// ApplyEnv lays environment variables over the files: TANDEM_MODEL,
// TANDEM_RUNTIME, TANDEM_PERMISSION_MODE, TANDEM_DATABASE_URL. Provider keys and base URLs from
// the environment (ANTHROPIC_API_KEY, OPENAI_BASE_URL, ...) are read when a
// provider is built, where the preset knows each provider's variable names.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if v := getenv("TANDEM_MODEL"); v != "" {
		c.Model = v
	}
	if v := getenv("TANDEM_RUNTIME"); v != "" {
		c.Runtime = runtimes.Name(v)
	}
	if v := getenv("TANDEM_PERMISSION_MODE"); v != "" {
		c.Mode = v
	}
	if v := getenv("TANDEM_DATABASE_URL"); v != "" {
		c.Database = v
	}
	if v := getenv("MAX_THINKING_TOKENS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return &Error{File: "environment", Field: "MAX_THINKING_TOKENS", Msg: fmt.Sprintf("%q is not a number of tokens", v)}
		}
		c.ThinkingBudget = n
	}
	return c.validate("environment")
}

// CheckModelSpec accepts "provider/model" or a catalog model id, for
// settings and flags that name models to call (fallback models).
func CheckModelSpec(spec string) error {
	s := strings.TrimSpace(spec)
	if s == "" || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") {
		return fmt.Errorf("%q is not a model; write provider/model, e.g. anthropic/claude-haiku-4-5", spec)
	}
	return nil
}

// checkCloud validates the cloud kinds' settings. A region becomes part of
// a host name (bedrock-runtime.REGION.amazonaws.com), so it may hold only
// what region names hold. Errors read "field: message".
func checkCloud(p Provider) error {
	if p.Region != "" && !CloudRegion(p.Region) {
		return fmt.Errorf("region: %q is not a region name; use one like us-east-1 (Bedrock) or us-east5, global (Vertex)", p.Region)
	}
	if f := p.CredentialsFile; f != "" && !filepath.IsAbs(f) && !strings.HasPrefix(f, "~/") {
		return fmt.Errorf("credentials_file: %q is relative; give the key file's full path (or ~/...)", f)
	}
	return nil
}

// CloudRegion reports whether s can be a cloud region or location name:
// lower-case letters, digits and dashes.
func CloudRegion(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// CheckEffort checks an effort level as the config's "effort" key and the
// --effort flags take it ("" is none).
func CheckEffort(e string) error {
	switch e {
	case "", "low", "medium", "high", "xhigh", "max":
		return nil
	}
	return fmt.Errorf("%q is not an effort level; use low, medium, high, xhigh or max (tandem models shows which a model takes)", e)
}
