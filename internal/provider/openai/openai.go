// Package openai is the adapter for OpenAI Chat Completions and
// OpenAI-compatible servers (kinds openai and openai-compatible), over
// charm.land/fantasy's OpenAI providers.
package openai

import (
	"context"
	"fmt"
	"sync"

	"charm.land/fantasy"
	fantasyopenai "charm.land/fantasy/providers/openai"
	"charm.land/fantasy/providers/openaicompat"

	"github.com/tandem-agent/tandem/internal/provider"
)

// fantasyAdapter implements Provider on top of a fantasy provider, for the
// OpenAI protocols. Only fantasy's LanguageModel.Stream is used; the agent
// loop, retries and tool execution are tandem's own.
type fantasyAdapter struct {
	cfg     provider.Config
	builder promptBuilder
	fp      fantasy.Provider
	tools   provider.ToolCache[[]fantasy.Tool]

	mu     sync.Mutex
	models map[string]fantasy.LanguageModel
}

// New builds the adapter for cfg (kind openai or openai-compatible): Chat
// Completions over fantasy. It makes no network call.
func New(cfg provider.Config) (provider.Provider, error) {
	a, err := newFantasyAdapter(cfg)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func newFantasyAdapter(cfg provider.Config) (*fantasyAdapter, error) {
	client := provider.HTTPClient(cfg)
	var fp fantasy.Provider
	var err error
	switch cfg.Kind {
	case provider.KindOpenAI:
		opts := []fantasyopenai.Option{fantasyopenai.WithHTTPClient(client), fantasyopenai.WithName(cfg.Name),
			fantasyopenai.WithLanguageModelOptions(fantasyopenai.WithLanguageModelPrepareCallFunc(withOutputFormat(fantasyopenai.DefaultPrepareCallFunc)))}
		if cfg.BaseURL != "" {
			opts = append(opts, fantasyopenai.WithBaseURL(cfg.BaseURL))
		}
		if cfg.APIKey != "" {
			opts = append(opts, fantasyopenai.WithAPIKey(cfg.APIKey))
		}
		if len(cfg.Headers) > 0 {
			opts = append(opts, fantasyopenai.WithHeaders(cfg.Headers))
		}
		fp, err = fantasyopenai.New(opts...)
	case provider.KindOpenAICompatible:
		// The fantasy name stays openaicompat.Name: its option lookup is
		// keyed by it.
		opts := []openaicompat.Option{openaicompat.WithHTTPClient(client), openaicompat.WithBaseURL(cfg.BaseURL),
			openaicompat.WithLanguageModelOptions(fantasyopenai.WithLanguageModelPrepareCallFunc(withOutputFormat(openaicompat.PrepareCallFunc)))}
		if cfg.APIKey != "" {
			opts = append(opts, openaicompat.WithAPIKey(cfg.APIKey))
		}
		if len(cfg.Headers) > 0 {
			opts = append(opts, openaicompat.WithHeaders(cfg.Headers))
		}
		fp, err = openaicompat.New(opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", cfg.Name, err)
	}
	return &fantasyAdapter{
		cfg:     cfg,
		builder: promptBuilder{name: cfg.Name, kind: cfg.Kind},
		fp:      fp,
		models:  map[string]fantasy.LanguageModel{},
	}, nil
}

func (a *fantasyAdapter) Name() string { return a.cfg.Name }

func (a *fantasyAdapter) model(ctx context.Context, id string) (fantasy.LanguageModel, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if lm, ok := a.models[id]; ok {
		return lm, nil
	}
	lm, err := a.fp.LanguageModel(ctx, id)
	if err != nil {
		return nil, err
	}
	a.models[id] = lm
	return lm, nil
}

// Stream makes one call and returns the complete response. Failures come
// back as *Error, except cancellation, which comes back as ctx.Err().
func (a *fantasyAdapter) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	if req.Model == "" {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "no model given"}
	}
	var tools []fantasy.Tool
	if len(req.Tools) > 0 {
		var err error
		if tools, err = a.tools.Get(req.Tools, functionTools); err != nil {
			return nil, &provider.Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
		}
	}
	call, err := a.builder.call(req, tools)
	if err != nil {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
	}
	lm, err := a.model(ctx, req.Model)
	if err != nil {
		return nil, provider.MapError(ctx, a.cfg.Name, err, classify)
	}
	stream, err := lm.Stream(provider.Streaming(ctx), call)
	if err != nil {
		return nil, provider.MapError(ctx, a.cfg.Name, err, classify)
	}
	acc := newAccumulator(a.cfg.Name, onDelta)
	for part := range stream {
		if part.Type == fantasy.StreamPartTypeError {
			return nil, provider.MapError(ctx, a.cfg.Name, part.Error, classify)
		}
		acc.add(part)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, ctx.Err())
	}
	if !acc.finished {
		return nil, provider.MapError(ctx, a.cfg.Name, fantasy.NewIncompleteStreamError(), classify)
	}
	return acc.response(req.Model), nil
}
