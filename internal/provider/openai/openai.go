// Package openai is the adapter for OpenAI Chat Completions and
// OpenAI-compatible servers (kinds openai and openai-compatible), its own
// small client over plain HTTP.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tandem-agent/tandem/internal/provider"
)

// defaultBase is OpenAI's API, for kind openai without a base URL.
const defaultBase = "https://api.openai.com/v1"

// chatAdapter speaks Chat Completions over plain HTTP. An SDK (fantasy over
// openai-go) costs every start of tandem its package initialisation, for a
// user who may never call this API; the wire format is small and stable,
// so tandem keeps its own, as it does for Gemini.
type chatAdapter struct {
	cfg     provider.Config
	client  *http.Client
	url     string
	builder promptBuilder
	tools   provider.ToolCache[[]chatTool]
}

// New builds the adapter for cfg (kind openai or openai-compatible). It
// makes no network call.
func New(cfg provider.Config) (provider.Provider, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		if cfg.Kind != provider.KindOpenAI {
			return nil, fmt.Errorf("provider %s: kind %q needs a base URL", cfg.Name, cfg.Kind)
		}
		base = defaultBase
	}
	return &chatAdapter{
		cfg:     cfg,
		client:  provider.HTTPClient(cfg), // sets Authorization from cfg.APIKey
		url:     base + "/chat/completions",
		builder: promptBuilder{name: cfg.Name, kind: cfg.Kind},
	}, nil
}

func (a *chatAdapter) Name() string { return a.cfg.Name }

// Stream makes one call and returns the complete response. Failures come
// back as *Error, except cancellation, which comes back as a wrap of
// ctx.Err().
func (a *chatAdapter) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	if req.Model == "" {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "no model given"}
	}
	body, err := a.requestBody(req)
	if err != nil {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
	}
	resp, err := provider.PostStream(ctx, a.client, a.cfg.Name, a.url, body, a.cfg.Headers, req.Headers)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, provider.StatusError(a.cfg.Name, resp)
	}
	acc := newAccumulator(a.cfg.Name, a.cfg.Kind, onDelta)
	if err := provider.ReadEvents(resp.Body, acc.add); err != nil {
		return nil, provider.MapError(ctx, a.cfg.Name, err, nil)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, ctx.Err())
	}
	if !acc.complete() {
		return nil, provider.MapError(ctx, a.cfg.Name, provider.ErrIncompleteStream, nil)
	}
	return acc.response(req.Model), nil
}

func (a *chatAdapter) requestBody(req provider.Request) ([]byte, error) {
	var tools []chatTool
	if len(req.Tools) > 0 {
		var err error
		if tools, err = a.tools.Get(req.Tools, functionTools); err != nil {
			return nil, err
		}
	}
	c, err := a.builder.body(req, tools)
	if err != nil {
		return nil, err
	}
	return json.Marshal(c)
}
