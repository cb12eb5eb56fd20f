// Package responses is the adapter for OpenAI's Responses API (kind
// openai-responses, and the Responses-only models of kind openai), its own
// small client over plain HTTP.
package responses

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/tandem-agent/tandem/internal/provider"
)

// defaultBase is OpenAI's API.
const defaultBase = "https://api.openai.com/v1"

// responsesAdapter speaks OpenAI's Responses API over plain HTTP: tandem
// builds the body and reads the event stream itself, so the binary links
// no OpenAI SDK, whose package initialisers every start of tandem would
// pay. Unlike Chat Completions it keeps a reasoning model's reasoning
// between steps: with store=false the API hands back each reasoning item
// encrypted, and tandem sends it back on the next call (as a thinking
// block whose signature holds the item), so the model does not re-derive
// its plan after every tool call.
type responsesAdapter struct {
	cfg    provider.Config
	client *http.Client
	url    string // POST target: the base URL's /responses, its query kept
	urlErr error  // a base URL that is not one, reported on each call
	azure  bool
}

// New builds the adapter for cfg (kind openai-responses, or the Responses
// side of kind openai). It makes no network call.
func New(cfg provider.Config) (provider.Provider, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = defaultBase
	}
	a := &responsesAdapter{cfg: cfg, client: provider.HTTPClient(cfg), azure: provider.AzureURL(base)}
	if u, err := url.Parse(base); err != nil || u.Scheme == "" || u.Host == "" {
		a.urlErr = fmt.Errorf("base URL %q is not an absolute URL; set base_url like %s", cfg.BaseURL, defaultBase)
	} else {
		a.url = u.JoinPath("responses").String()
	}
	return a, nil
}

func (a *responsesAdapter) Name() string { return a.cfg.Name }

// Stream makes one call. Failures come back as *Error, cancellation as a
// wrap of ctx.Err().
func (a *responsesAdapter) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	if req.Model == "" {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "no model given"}
	}
	if a.urlErr != nil {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: a.urlErr.Error(), Cause: a.urlErr}
	}
	body, err := json.Marshal(a.body(req))
	if err != nil {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
	}
	var own map[string]string
	if a.azure && a.cfg.APIKey != "" {
		// Azure OpenAI takes the key in its own header (the bearer token
		// comes from the auth transport).
		own = map[string]string{"Api-Key": a.cfg.APIKey}
	}
	resp, err := provider.PostStream(ctx, a.client, a.cfg.Name, a.url, body, own, a.cfg.Headers, req.Headers)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, provider.StatusError(a.cfg.Name, resp)
	}
	return a.read(ctx, req.Model, resp.Body, onDelta)
}

// read folds the event stream into the response. Once the response is
// complete, a failure reading the rest of the stream does not lose it.
func (a *responsesAdapter) read(ctx context.Context, model string, body io.Reader, onDelta func(provider.Delta)) (*provider.Response, error) {
	acc := newResponsesAccumulator(a.cfg.Name, onDelta)
	err := provider.ReadEvents(body, acc.add)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, ctx.Err())
	}
	if acc.done {
		return acc.response(model), nil
	}
	if err == nil {
		err = provider.ErrIncompleteStream
	}
	return nil, provider.MapError(ctx, a.cfg.Name, err, nil)
}

// responsesBody is the request body. Fields are the API's.
type responsesBody struct {
	Model           string            `json:"model"`
	Instructions    string            `json:"instructions,omitempty"`
	Input           []map[string]any  `json:"input"`
	Tools           []map[string]any  `json:"tools,omitempty"`
	MaxOutputTokens int64             `json:"max_output_tokens,omitempty"`
	Stream          bool              `json:"stream"`
	Store           bool              `json:"store"`
	Include         []string          `json:"include,omitempty"`
	Reasoning       map[string]string `json:"reasoning,omitempty"`
	PromptCacheKey  string            `json:"prompt_cache_key,omitempty"`
	ParallelTools   *bool             `json:"parallel_tool_calls,omitempty"`
	Text            map[string]any    `json:"text,omitempty"`
}

func (a *responsesAdapter) body(req provider.Request) responsesBody {
	b := responsesBody{Model: req.Model, Instructions: strings.Join(req.System, "\n\n"), Stream: true,
		// Nothing is kept on OpenAI's side: the conversation is tandem's,
		// sent whole each time, with reasoning carried encrypted.
		Store: false, MaxOutputTokens: req.MaxTokens, Input: responsesInput(a.cfg.Name, req)}
	if reasoningModel(req.Model) {
		b.Include = []string{"reasoning.encrypted_content"}
		b.Reasoning = map[string]string{"summary": "auto"}
		if req.Effort != "" {
			b.Reasoning["effort"] = req.Effort
		}
	}
	for _, t := range req.Tools {
		var schema any = map[string]any{"type": "object", "properties": map[string]any{}}
		if len(t.InputSchema) > 0 {
			schema = t.InputSchema
		}
		b.Tools = append(b.Tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description,
			"parameters": schema, "strict": false})
	}
	if len(b.Tools) > 0 {
		yes := true
		b.ParallelTools = &yes
	}
	if len(req.OutputSchema) > 0 {
		// Not strict: strict mode refuses schemas without
		// additionalProperties false and every property required.
		b.Text = map[string]any{"format": map[string]any{"type": "json_schema", "name": "output", "schema": req.OutputSchema}}
	}
	b.PromptCacheKey = cacheKey(req)
	return b
}

// cacheKey routes requests that share a prefix (same instructions and
// tools) to the same cache, which OpenAI's prompt caching needs to hit
// reliably on long prefixes.
func cacheKey(req provider.Request) string {
	h := sha256.New()
	h.Write([]byte(req.Model))
	for _, s := range req.System {
		h.Write([]byte(s))
	}
	for _, t := range req.Tools {
		h.Write([]byte(t.Name))
	}
	return "tandem-" + hex.EncodeToString(h.Sum(nil)[:12])
}

// reasoningModel reports the models that take reasoning parameters (the
// API rejects them for the others).
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "codex"} {
		if strings.HasPrefix(m, p) || strings.Contains(m, "/"+p) {
			return true
		}
	}
	return false
}
