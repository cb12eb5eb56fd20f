package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// Default endpoints when a Config has no BaseURL (what the SDKs use).
const (
	defaultAnthropicURL = "https://api.anthropic.com"
	defaultOpenAIURL    = "https://api.openai.com/v1"
)

// Probe is the outcome of one live check of a provider (`tandem doctor`).
type Probe struct {
	Provider string `json:"provider"`
	Kind     string `json:"kind"`
	BaseURL  string `json:"base_url"`
	// Method is "models" (the model list) or "call" (a one-token request,
	// for servers without a model list).
	Method string `json:"method"`
	// Reachable: an HTTP answer came back. Authenticated: it was not 401/403.
	Reachable     bool `json:"reachable"`
	Authenticated bool `json:"authenticated"`
	// Models is how many models the list holds (0 for a call).
	Models int `json:"models,omitempty"`
	// Model is the model checked ("" when none was asked for) and
	// ModelAvailable whether the provider has it (nil: not known).
	Model          string `json:"model,omitempty"`
	ModelAvailable *bool  `json:"model_available,omitempty"`
	HTTPStatus     int    `json:"http_status,omitempty"`
	LatencyMS      int64  `json:"latency_ms"`
	Error          string `json:"error,omitempty"`
	OK             bool   `json:"ok"`
}

// ProbeProvider makes one minimal live request to cfg: the model list where
// the API has one (Anthropic and OpenAI GET /v1/models, which most
// OpenAI-compatible servers serve too), else a one-token call of model.
// model may be empty; when given, its availability is reported.
func ProbeProvider(ctx context.Context, cfg provider.Config, model string) Probe {
	p := Probe{Provider: cfg.Name, Kind: cfg.Kind, BaseURL: baseURL(cfg), Method: "models", Model: model}
	if provider.CloudKind(cfg.Kind) {
		// The clouds list models on other hosts and APIs (Bedrock's control
		// plane, Vertex's model garden) than the calls use; one token
		// through the real call path checks credentials, region and model.
		if model == "" {
			model = cloudProbeModel(cfg.Kind)
		}
		p.Model = model
		return probeCall(ctx, cfg, model, p)
	}
	start := time.Now()
	ids, status, err := listModels(ctx, cfg)
	p.LatencyMS = time.Since(start).Milliseconds()
	p.HTTPStatus = status
	p.Reachable = status != 0
	p.Authenticated = p.Reachable && status != http.StatusUnauthorized && status != http.StatusForbidden
	switch {
	case err == nil:
		p.Models = len(ids)
		if model != "" {
			has := slices.Contains(ids, model)
			p.ModelAvailable = &has
			if !has {
				p.Error = fmt.Sprintf("model %s is not in the provider's list of %d models", model, len(ids))
			}
		}
	case p.Reachable && p.Authenticated && model != "" && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed):
		// No model list here: ask for one token instead.
		return probeCall(ctx, cfg, model, p)
	default:
		p.Error = err.Error()
	}
	p.OK = p.Reachable && p.Authenticated && p.Error == ""
	return p
}

func probeCall(ctx context.Context, cfg provider.Config, model string, p Probe) Probe {
	p.Method, p.HTTPStatus = "call", 0
	prov, err := New(cfg)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	start := time.Now()
	ping := message.Message{Role: message.User, Content: []message.Block{message.TextBlock("ping")}}
	_, err = prov.Stream(ctx, provider.Request{Model: model, MaxTokens: 1, Messages: []message.Message{ping}}, func(provider.Delta) {})
	p.LatencyMS = time.Since(start).Milliseconds()
	ok := err == nil
	if pe, isPE := provider.AsError(err); isPE {
		p.HTTPStatus = pe.Status
		p.Reachable = pe.Status != 0
		p.Authenticated = p.Reachable && !pe.Auth
		if pe.Status == http.StatusNotFound {
			ok = false
			p.ModelAvailable = &ok
		}
	} else if ok {
		p.ModelAvailable = &ok
	}
	if err != nil {
		p.Error = err.Error()
	}
	p.OK = err == nil
	return p
}

func baseURL(cfg provider.Config) string {
	if cfg.BaseURL != "" {
		return strings.TrimRight(cfg.BaseURL, "/")
	}
	switch cfg.Kind {
	case provider.KindAnthropic:
		return defaultAnthropicURL
	case provider.KindBedrock, provider.KindVertex:
		return cloudEndpoint(cfg)
	}
	return defaultOpenAIURL
}

// modelsURL: Anthropic's base URL has no /v1 (the SDK adds it); the OpenAI
// kinds' base URLs end in /v1 already.
func modelsURL(cfg provider.Config) string {
	switch cfg.Kind {
	case provider.KindAnthropic:
		return baseURL(cfg) + "/v1/models?limit=1000"
	case provider.KindGemini:
		return baseURL(cfg) + "/models?pageSize=1000"
	}
	return baseURL(cfg) + "/models"
}

// listModels fetches the model ids. status is the HTTP status, 0 when no
// answer came back.
func listModels(ctx context.Context, cfg provider.Config) (ids []string, status int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, modelsURL(cfg), nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	for k, v := range cfg.Headers {
		req.Header.Set(k, v)
	}
	if cfg.Kind == provider.KindAnthropic {
		req.Header.Set("anthropic-version", "2023-06-01")
	}
	if provider.AzureURL(cfg.BaseURL) && cfg.APIKey != "" {
		req.Header.Set("api-key", cfg.APIKey)
	}
	resp, err := provider.HTTPClient(cfg).Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %s", cfg.Name, provider.Shorten(err.Error()))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("%s: read the model list: %w", cfg.Name, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := provider.Shorten(provider.BodyMessage(body))
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		return nil, resp.StatusCode, &provider.Error{Provider: cfg.Name, Status: resp.StatusCode, Message: msg,
			Auth: resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		// Gemini: {"models": [{"name": "models/gemini-2.5-pro"}]}
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, resp.StatusCode, fmt.Errorf("%s: the model list is not JSON: %w", cfg.Name, err)
	}
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	for _, m := range list.Models {
		ids = append(ids, strings.TrimPrefix(m.Name, "models/"))
	}
	return ids, resp.StatusCode, nil
}

// ListModels returns the model ids cfg's model-list endpoint reports.
func ListModels(ctx context.Context, cfg provider.Config) ([]string, error) {
	ids, _, err := listModels(ctx, cfg)
	return ids, err
}
