package provider

import (
	"context"
	"fmt"
	"sync"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/openai"
	"charm.land/fantasy/providers/openaicompat"
)

// fantasyAdapter implements Provider on top of a fantasy provider, for the
// OpenAI protocols. Only fantasy's LanguageModel.Stream is used; the agent
// loop, retries and tool execution are tandem's own.
type fantasyAdapter struct {
	cfg     Config
	builder promptBuilder
	fp      fantasy.Provider
	tools   toolCache[[]fantasy.Tool]

	mu     sync.Mutex
	models map[string]fantasy.LanguageModel
}

func newFantasyAdapter(cfg Config) (*fantasyAdapter, error) {
	client := httpClient(cfg)
	var fp fantasy.Provider
	var err error
	switch cfg.Kind {
	case KindOpenAI:
		opts := []openai.Option{openai.WithHTTPClient(client), openai.WithName(cfg.Name)}
		if cfg.BaseURL != "" {
			opts = append(opts, openai.WithBaseURL(cfg.BaseURL))
		}
		if cfg.APIKey != "" {
			opts = append(opts, openai.WithAPIKey(cfg.APIKey))
		}
		if len(cfg.Headers) > 0 {
			opts = append(opts, openai.WithHeaders(cfg.Headers))
		}
		fp, err = openai.New(opts...)
	case KindOpenAICompatible:
		// The fantasy name stays openaicompat.Name: its option lookup is
		// keyed by it.
		opts := []openaicompat.Option{openaicompat.WithHTTPClient(client), openaicompat.WithBaseURL(cfg.BaseURL)}
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
func (a *fantasyAdapter) Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	if req.Model == "" {
		return nil, &Error{Provider: a.cfg.Name, Message: "no model given"}
	}
	var tools []fantasy.Tool
	if len(req.Tools) > 0 {
		var err error
		if tools, err = a.tools.get(req.Tools, functionTools); err != nil {
			return nil, &Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
		}
	}
	call, err := a.builder.call(req, tools)
	if err != nil {
		return nil, &Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
	}
	lm, err := a.model(ctx, req.Model)
	if err != nil {
		return nil, mapError(ctx, a.cfg.Name, err)
	}
	stream, err := lm.Stream(streaming(ctx), call)
	if err != nil {
		return nil, mapError(ctx, a.cfg.Name, err)
	}
	acc := newAccumulator(a.cfg.Name, onDelta)
	for part := range stream {
		if part.Type == fantasy.StreamPartTypeError {
			return nil, mapError(ctx, a.cfg.Name, part.Error)
		}
		acc.add(part)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, ctx.Err())
	}
	if !acc.finished {
		return nil, mapError(ctx, a.cfg.Name, fantasy.NewIncompleteStreamError())
	}
	return acc.response(req.Model), nil
}
