package provider

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Kinds of wire protocol an adapter can speak.
const (
	KindAnthropic        = "anthropic"
	KindOpenAI           = "openai"
	KindOpenAICompatible = "openai-compatible"
	KindOpenAIResponses  = "openai-responses"
	KindGemini           = "gemini"
	// KindBedrock is Anthropic's models on Amazon Bedrock, KindVertex
	// Gemini and Anthropic models on Google Cloud Vertex AI; their
	// credentials come from the clouds' own chains (see Cloud).
	KindBedrock = "bedrock"
	KindVertex  = "vertex"
)

// Kinds lists every kind, in the order messages name them.
func Kinds() []string {
	return []string{KindAnthropic, KindOpenAI, KindOpenAICompatible, KindOpenAIResponses, KindGemini, KindBedrock, KindVertex}
}

// ValidKind reports whether k is one of Kinds.
func ValidKind(k string) bool {
	for _, x := range Kinds() {
		if x == k {
			return true
		}
	}
	return false
}

// KindList is Kinds for messages: "anthropic, openai, ... or openai-responses".
func KindList() string {
	ks := Kinds()
	return strings.Join(ks[:len(ks)-1], ", ") + " or " + ks[len(ks)-1]
}

// Config says how to reach one provider. The caller (config loading, the
// catalog's presets) resolves environment variables; adapters read nothing
// from the environment themselves, so what is configured is what is sent.
type Config struct {
	// Name identifies the provider in errors, Block.Provider and the
	// "provider/model" spec: "anthropic", "openai", "ollama", or a user's own.
	Name string
	// Kind is the wire protocol, one of Kinds.
	Kind    string
	BaseURL string
	APIKey  string
	// AuthToken is an Anthropic bearer token (ANTHROPIC_AUTH_TOKEN): sent as
	// "Authorization: Bearer", with no x-api-key header.
	AuthToken string
	// Headers are sent on every call (Request.Headers add per call).
	Headers map[string]string
	// HTTPClient is optional; http.DefaultClient's transport is used when nil.
	HTTPClient *http.Client
	// ResponsesModels are the models a KindOpenAI provider serves only
	// through the Responses API (the catalog's "api": "responses"); every
	// other model goes through Chat Completions.
	ResponsesModels []string
	// FirstByteTimeout bounds the wait for a streamed call's first event,
	// IdleTimeout the silence between events once it started; keep-alive
	// pings do not count as events. 0: the defaults; negative: off.
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
	// Cloud is what KindBedrock and KindVertex take beside the above.
	Cloud Cloud
	// Transport is one of Transports; only the anthropic kind reads it.
	Transport string
	// InstallID is a random id kept in tandem's data folder (never derived
	// from a secret). The claude-code-compat transport derives the
	// device_id of metadata.user_id from it, stable per install as Claude
	// Code's is.
	InstallID string
}

// Cloud holds the cloud kinds' settings. Credentials themselves come from
// the clouds' own chains (AWS: environment, shared files, SSO, instance
// roles; Google: application-default credentials or CredentialsFile),
// read on the first call, never at start-up.
type Cloud struct {
	// Region is Bedrock's AWS region or Vertex's location (us-east5,
	// global, ...). Bedrock falls back to the AWS configuration's region,
	// Vertex to "global".
	Region string
	// Project is the Vertex Google Cloud project; empty: the credentials'.
	Project string
	// CredentialsFile is a Google credentials JSON file for Vertex (a
	// service-account key, ...); empty: application-default credentials.
	CredentialsFile string
	// Profile is the AWS shared-config profile for Bedrock; empty:
	// AWS_PROFILE or the default profile.
	Profile string
}

// CloudKind reports whether k authenticates with a cloud's credential
// chain rather than an API key.
func CloudKind(k string) bool { return k == KindBedrock || k == KindVertex }

// ClaudeCodeCompat reports whether cfg sends Claude Code's request shape.
func (cfg Config) ClaudeCodeCompat() bool { return cfg.Transport == TransportClaudeCodeCompat }

// keylessHosts are local servers that accept calls without a key.
var keylessHosts = []string{"localhost", "127.0.0.1", "[::1]", "0.0.0.0", "host.docker.internal"}

// keylessNames are presets of local servers that need no key.
var keylessNames = map[string]bool{
	"ollama": true, "lmstudio": true, "llamacpp": true, "llama.cpp": true, "llama-cpp": true, "vllm": true,
}

// NeedsKey reports whether calls to cfg will be refused without credentials.
func (cfg Config) NeedsKey() bool {
	if cfg.APIKey != "" || cfg.AuthToken != "" || CloudKind(cfg.Kind) {
		return false
	}
	if keylessNames[strings.ToLower(cfg.Name)] {
		return false
	}
	if HasHeader(cfg.Headers, "authorization") || HasHeader(cfg.Headers, "x-api-key") {
		return false
	}
	if cfg.Kind == KindOpenAICompatible && isLocalURL(cfg.BaseURL) {
		return false
	}
	return true
}

func isLocalURL(u string) bool {
	rest := u
	if _, after, ok := strings.Cut(u, "://"); ok {
		rest = after
	}
	host, _, _ := strings.Cut(rest, "/")
	for _, h := range keylessHosts {
		if host == h || strings.HasPrefix(host, h+":") {
			return true
		}
	}
	return false
}

// HasHeader reports whether h has name, in any case.
func HasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// KeyHint names what to set when a key is missing.
func (cfg Config) KeyHint() string {
	switch strings.ToLower(cfg.Name) {
	case "anthropic":
		return "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a bearer token)"
	case "openai":
		return "set OPENAI_API_KEY"
	case "openrouter":
		return "set OPENROUTER_API_KEY"
	case "deepseek":
		return "set DEEPSEEK_API_KEY"
	}
	return fmt.Sprintf("set api_key for provider %q in the config file (or %s_API_KEY)",
		cfg.Name, strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(cfg.Name)))
}

// AzureURL reports an Azure OpenAI endpoint (https://NAME.openai.azure.com/openai/v1/).
func AzureURL(u string) bool {
	return strings.Contains(u, ".openai.azure.com") || strings.Contains(u, ".cognitiveservices.azure.com")
}
