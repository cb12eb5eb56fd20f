package providers

import (
	"context"
	"net/http"
	"strings"

	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/anthropic"
	"github.com/tandem-agent/tandem/internal/provider/bedrock"
	"github.com/tandem-agent/tandem/internal/provider/gemini"
	"github.com/tandem-agent/tandem/internal/provider/vertex"
)

// Placeholder base URLs for the adapters when none is configured: the
// transports put the real host (which depends on the region) on each call.
const (
	bedrockPlaceholderBase = "https://bedrock-runtime.amazonaws.com"
	vertexPlaceholderBase  = "https://aiplatform.googleapis.com"
)

// newBedrock is the Anthropic Messages adapter with the Bedrock transport
// as its last hop. cfg.APIKey is a Bedrock API key (a bearer token);
// without one, requests are signed with the AWS credential chain. Nothing
// is loaded until the first call.
func newBedrock(cfg provider.Config) (provider.Provider, error) {
	t := bedrock.NewTransport(bedrock.Options{
		Region: cfg.Cloud.Region, Profile: cfg.Cloud.Profile, BearerToken: cfg.APIKey,
		Endpoint: cfg.BaseURL, Base: baseTransport(cfg),
	})
	return anthropic.New(cloudInner(cfg, provider.KindAnthropic, bedrockPlaceholderBase, t))
}

// newVertex serves Claude models ("claude-...") through the Anthropic
// Messages adapter and every other model through the Gemini adapter, both
// over one Vertex transport (one token source).
func newVertex(cfg provider.Config) (provider.Provider, error) {
	t := vertex.NewTransport(vertex.Options{
		Project: cfg.Cloud.Project, Location: cfg.Cloud.Region, CredentialsFile: cfg.Cloud.CredentialsFile,
		Endpoint: cfg.BaseURL, Base: baseTransport(cfg),
	})
	claude, err := anthropic.New(cloudInner(cfg, provider.KindAnthropic, vertexPlaceholderBase, t))
	if err != nil {
		return nil, err
	}
	other, err := gemini.New(cloudInner(cfg, provider.KindGemini, vertexPlaceholderBase, t))
	if err != nil {
		return nil, err
	}
	return &vertexAdapter{name: cfg.Name, claude: claude, gemini: other}, nil
}

// cloudInner is cfg as the inner adapter sees it: no key of its own (the
// transport authenticates), the wire protocol's kind, and the transport as
// the last hop, under the auth and stall-watch transports.
func cloudInner(cfg provider.Config, kind, placeholder string, t http.RoundTripper) provider.Config {
	inner := cfg
	inner.Kind = kind
	inner.APIKey, inner.AuthToken = "", ""
	if inner.BaseURL == "" {
		inner.BaseURL = placeholder
	}
	var hc http.Client
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	hc.Transport = t
	inner.HTTPClient = &hc
	return inner
}

func baseTransport(cfg provider.Config) http.RoundTripper {
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		return cfg.HTTPClient.Transport
	}
	return http.DefaultTransport
}

type vertexAdapter struct {
	name           string
	claude, gemini provider.Provider
}

func (a *vertexAdapter) Name() string { return a.name }

func (a *vertexAdapter) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	if isClaude(req.Model) {
		return a.claude.Stream(ctx, req, onDelta)
	}
	return a.gemini.Stream(ctx, req, onDelta)
}

// isClaude reports whether a Vertex model id is Anthropic's
// (claude-sonnet-4-5@20250929).
func isClaude(model string) bool {
	return strings.HasPrefix(strings.ToLower(model), "claude")
}

// cloudProbeModel is the model `tandem doctor` asks for one token when the
// session uses none of the provider's: the cheapest current one.
func cloudProbeModel(kind string) string {
	if kind == provider.KindBedrock {
		return "us.anthropic.claude-haiku-4-5-20251001-v1:0"
	}
	return "gemini-2.5-flash"
}

// cloudEndpoint is where a cloud provider's calls go, for reports.
func cloudEndpoint(cfg provider.Config) string {
	if cfg.Kind == provider.KindVertex {
		return vertex.NewTransport(vertex.Options{Location: cfg.Cloud.Region}).Endpoint()
	}
	if cfg.Cloud.Region == "" {
		return "https://bedrock-runtime.REGION.amazonaws.com"
	}
	return "https://bedrock-runtime." + cfg.Cloud.Region + ".amazonaws.com"
}
