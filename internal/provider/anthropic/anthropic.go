// Package anthropic is the adapter for the Anthropic Messages API (kind
// anthropic), on the official anthropic-sdk-go Messages service with history
// and tools pre-encoded and cached.
package anthropic

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/tandem-agent/tandem/internal/provider"
)

// anthropicAdapter speaks the Messages API through the official SDK's root
// package, which (unlike fantasy's Anthropic provider) links no Bedrock or
// Vertex support and so none of the AWS and Google Cloud SDKs.
type anthropicAdapter struct {
	cfg      provider.Config
	messages anthropic.MessageService
	tools    provider.ToolCache[[]byte]
	history  historyCache
	// compat is set for the claude-code-compat transport.
	compat *compatShape
}

// New builds the adapter for cfg (kind anthropic). It makes no network call.
func New(cfg provider.Config) (provider.Provider, error) {
	return newAnthropicAdapter(cfg), nil
}

// newAnthropicAdapter builds the Messages service alone rather than an
// anthropic.Client: the client holds every service of the API (agents,
// sessions, admin, ...), and because the binary links reflection-based
// method lookups (text/template), every exported method of every reachable
// type is kept. The client would add ~4 MB of code tandem never calls.
func newAnthropicAdapter(cfg provider.Config) *anthropicAdapter {
	return &anthropicAdapter{
		cfg:      cfg,
		messages: anthropic.NewMessageService(anthropicClientOptions(cfg)...),
		history:  newHistoryCache(),
		compat:   newCompatShape(cfg),
	}
}

// anthropicClientOptions sends what cfg says and nothing the SDK would find
// on its own: no ANTHROPIC_* variables, no profile files, no custom headers
// from the environment. Retries are the agent loop's (it emits retry
// events), so the SDK makes one attempt.
func anthropicClientOptions(cfg provider.Config) []option.RequestOption {
	opts := []option.RequestOption{
		// Only the service is built, so NewClient's environment defaults
		// never apply; this states the intent and guards a later switch
		// to NewClient.
		option.WithoutEnvironmentDefaults(),
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(provider.HTTPClient(cfg)),
		option.WithMaxRetries(0),
		option.WithoutOpenTelemetry(),
		option.WithOpenTelemetryPropagation(false),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	// The SDK's WithAPIKey sends the key as a bearer token; the Messages
	// API's documented header for keys is x-api-key, so it is set directly
	// (provider.HTTPClient's auth transport enforces the same on the wire).
	switch {
	case cfg.AuthToken != "":
		opts = append(opts, option.WithHeader("Authorization", "Bearer "+cfg.AuthToken))
	case cfg.APIKey != "":
		opts = append(opts, option.WithHeader("X-Api-Key", cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return opts
}

func (a *anthropicAdapter) Name() string { return a.cfg.Name }

// Stream makes one call and returns the complete response. Failures come
// back as *Error, except cancellation, which comes back as ctx.Err().
func (a *anthropicAdapter) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	if req.Model == "" {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "no model given"}
	}
	params, err := a.params(req)
	if err != nil {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
	}
	body, err := a.body(params, req)
	if err != nil {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
	}
	reqOpts := []option.RequestOption{option.WithRequestBody("application/json", body)}
	for k, v := range req.Headers {
		reqOpts = append(reqOpts, option.WithHeader(k, v))
	}
	if a.compat != nil {
		reqOpts = append(reqOpts, a.compat.requestOptions(headerValue(req.Headers, "anthropic-beta"))...)
	}
	stream := a.messages.NewStreaming(provider.Streaming(ctx), params, reqOpts...)
	defer stream.Close()
	acc := newAnthropicAccumulator(a.cfg.Name, onDelta)
	for stream.Next() {
		acc.add(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return nil, provider.MapError(ctx, a.cfg.Name, err, classify)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, ctx.Err())
	}
	// Anthropic ends a message with message_delta (the stop reason) and
	// then message_stop; a connection closed before both is a cut stream.
	if !acc.stopped || acc.stopReason == "" {
		return nil, provider.MapError(ctx, a.cfg.Name, provider.ErrIncompleteStream, classify)
	}
	return acc.response(req.Model), nil
}

// headerValue is h's value for name, in any case.
func headerValue(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
