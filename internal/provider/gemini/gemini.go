// Package gemini is the adapter for the Gemini API (kind gemini), its own
// small client over plain HTTP.
package gemini

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/provider"
)

// geminiDefaultBase is the Gemini API (Google AI Studio keys).
const geminiDefaultBase = "https://generativelanguage.googleapis.com/v1beta"

// geminiAdapter speaks the Gemini API's streamGenerateContent over plain
// HTTP. The official SDK (google.golang.org/genai) links gRPC, protobuf and
// Google Cloud auth (a hello-world using it is a 21 MB binary); this wire
// format is small and stable, so tandem keeps its own, and a user who never
// calls Gemini pays nothing for it.
type geminiAdapter struct {
	cfg    provider.Config
	client *http.Client
	base   string
}

// New builds the adapter for cfg (kind gemini). It makes no network call.
func New(cfg provider.Config) (provider.Provider, error) {
	return newGeminiAdapter(cfg), nil
}

func newGeminiAdapter(cfg provider.Config) *geminiAdapter {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = geminiDefaultBase
	}
	return &geminiAdapter{cfg: cfg, client: provider.HTTPClient(cfg), base: base}
}

func (a *geminiAdapter) Name() string { return a.cfg.Name }

// Stream makes one call. Failures come back as *Error, cancellation as a
// wrap of ctx.Err().
func (a *geminiAdapter) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	if req.Model == "" {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "no model given"}
	}
	body, err := json.Marshal(geminiBody(a.cfg.Name, req))
	if err != nil {
		return nil, &provider.Error{Provider: a.cfg.Name, Message: "build request: " + err.Error(), Cause: err}
	}
	url := a.base + "/models/" + req.Model + ":streamGenerateContent?alt=sse"
	resp, err := provider.PostStream(ctx, a.client, a.cfg.Name, url, body, a.cfg.Headers, req.Headers)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, geminiHTTPError(a.cfg.Name, resp)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "text/event-stream") {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, &provider.Error{Provider: a.cfg.Name, Status: resp.StatusCode,
			Message: fmt.Sprintf("expected an event stream, got %s: %s", ct, provider.Shorten(string(head)))}
	}
	acc := newGeminiAccumulator(a.cfg.Name, onDelta)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	for sc.Scan() {
		line := sc.Bytes()
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		if err := acc.add(bytes.TrimSpace(data)); err != nil {
			return nil, provider.MapError(ctx, a.cfg.Name, err, nil)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, provider.MapError(ctx, a.cfg.Name, err, nil)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, ctx.Err())
	}
	if acc.finish == "" {
		return nil, provider.MapError(ctx, a.cfg.Name, provider.ErrIncompleteStream, nil)
	}
	return acc.response(req.Model), nil
}

// geminiHTTPError classifies an error answer: {"error": {code, message, status}}.
func geminiHTTPError(name string, resp *http.Response) *provider.Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Error struct {
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	_ = json.Unmarshal(b, &e)
	msg := cmp.Or(e.Error.Message, provider.BodyMessage(b), http.StatusText(resp.StatusCode))
	if e.Error.Status != "" {
		msg = e.Error.Status + ": " + msg
	}
	out := &provider.Error{Provider: name, Status: resp.StatusCode, Message: provider.Shorten(msg)}
	out.Auth = resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden ||
		e.Error.Status == "UNAUTHENTICATED" || e.Error.Status == "PERMISSION_DENIED" ||
		(resp.StatusCode == http.StatusBadRequest && strings.Contains(msg, "API key not valid"))
	out.Retryable = !out.Auth && (provider.RetryableStatus(resp.StatusCode) || e.Error.Status == "UNAVAILABLE" || e.Error.Status == "RESOURCE_EXHAUSTED")
	out.RetryAfter = provider.RetryAfter(provider.HeaderMap(resp.Header), time.Now())
	return out
}
