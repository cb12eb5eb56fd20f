// Package web provides the WebFetch and WebSearch tools, with Claude Code's
// names and input schemas.
package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

const (
	fetchName        = "WebFetch"
	defaultMaxBytes  = 5 << 20
	defaultTimeout   = 30 * time.Second
	maxContentChars  = 100000
	maxURLLen        = 2000
	maxSameHostHops  = 10
	defaultCacheTTL  = 15 * time.Minute
	defaultCacheSize = 32
)

//go:embed webfetch.md
var fetchDescription string

var fetchSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "url": {"type": "string", "format": "uri", "description": "The URL to fetch content from"},
    "prompt": {"type": "string", "description": "The prompt to run on the fetched content"}
  },
  "required": ["url", "prompt"],
  "additionalProperties": false
}`)

// Summarizer applies a prompt to fetched content, typically with a small,
// cheap model.
type Summarizer interface {
	Summarize(ctx context.Context, prompt, content string) (string, error)
}

// FetchConfig configures WebFetch. The zero value is safe: public
// addresses only, no summarizer, default limits.
type FetchConfig struct {
	// AllowPrivate permits loopback, private and link-local addresses (and
	// keeps http:// for local hosts instead of upgrading to https).
	AllowPrivate bool
	// Summarizer applies the prompt; nil returns the content itself.
	Summarizer Summarizer
	// HTTPClient replaces the guarded client (tests). Its CheckRedirect is
	// replaced so that cross-host redirects are still reported.
	HTTPClient *http.Client
	MaxBytes   int64         // default 5 MiB
	Timeout    time.Duration // default 30 s
	CacheTTL   time.Duration // default 15 min; negative disables the cache
}

// WebFetch fetches a URL and returns it as Markdown (or a summary of it).
type WebFetch struct {
	cfg    FetchConfig
	client *http.Client
	cache  *cache
}

// NewWebFetch returns the WebFetch tool.
func NewWebFetch(cfg FetchConfig) *WebFetch {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = defaultMaxBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = defaultCacheTTL
	}
	w := &WebFetch{cfg: cfg, cache: newCache(cfg.CacheTTL, defaultCacheSize)}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		c.CheckRedirect = sameHostRedirects
		w.client = &c
	} else {
		w.client = guardedClient(cfg.AllowPrivate, cfg.Timeout, sameHostRedirects)
	}
	return w
}

func (*WebFetch) Name() string            { return fetchName }
func (*WebFetch) Description() string     { return fetchDescription }
func (*WebFetch) Schema() json.RawMessage { return fetchSchema }
func (*WebFetch) ReadOnly() bool          { return true }

type fetchInput struct {
	URL    string `json:"url"`
	Prompt string `json:"prompt"`
}

// page is a fetched, converted document (what the cache keeps).
type page struct {
	url         string // final URL
	status      int
	contentType string
	bytes       int
	markdown    string
	truncated   bool // cut at MaxBytes
	redirect    string
}

func (w *WebFetch) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	var in fetchInput
	if err := tool.DecodeInput(fetchName, call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	for _, f := range [][2]string{{"url", in.URL}, {"prompt", in.Prompt}} {
		if err := tool.RequireString(fetchName, f[0], f[1]); err != nil {
			return tool.ErrorResult(err.Error()), nil
		}
	}
	u, err := w.checkURL(in.URL)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	pg, cached := w.cache.get(u.String())
	if !cached {
		pg, err = w.fetch(ctx, u)
		if err != nil {
			return tool.ErrorResult(err.Error()), nil
		}
		if pg.redirect == "" && pg.status < 400 {
			w.cache.put(u.String(), pg)
		}
	}
	return w.result(ctx, in, pg, cached), nil
}

// checkURL validates the URL and upgrades http to https (except for local
// hosts when they are allowed).
func (w *WebFetch) checkURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if len(raw) > maxURLLen {
		return nil, fmt.Errorf("invalid input for WebFetch: the URL is %d characters long; at most %d are accepted", len(raw), maxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid input for WebFetch: %q is not a valid URL: %v", raw, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("invalid input for WebFetch: only http and https URLs can be fetched, got %q (give a full URL such as https://example.com/page)", raw)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("invalid input for WebFetch: URL %q has no host", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("invalid input for WebFetch: URLs with a user name or password are not fetched; remove the credentials from %q", u.Redacted())
	}
	local := isLocalHost(u.Hostname())
	if local && !w.cfg.AllowPrivate {
		return nil, fmt.Errorf("WebFetch refused %s: it is a local or private address; WebFetch only fetches public addresses (allow private addresses in tandem's config to fetch it)", u.Host)
	}
	if u.Scheme == "http" && !(local && w.cfg.AllowPrivate) {
		u.Scheme = "https"
	}
	u.Fragment = ""
	return u, nil
}

// sameHostRedirects follows redirects within a host (www. added or removed
// counts as the same) and stops at others, which are reported instead.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= maxSameHostHops {
		return fmt.Errorf("stopped after %d redirects", maxSameHostHops)
	}
	if !sameHost(via[0].URL, req.URL) {
		return http.ErrUseLastResponse
	}
	return nil
}

func sameHost(a, b *url.URL) bool {
	strip := func(u *url.URL) string { return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") }
	return strip(a) == strip(b) && a.Port() == b.Port()
}

func (w *WebFetch) fetch(ctx context.Context, u *url.URL) (*page, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("WebFetch: bad request for %s: %v", u, err)
	}
	req.Header.Set("User-Agent", "tandem-webfetch/1 (+agent)")
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5")
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, describeFetchError(u, err, w.cfg.Timeout)
	}
	defer resp.Body.Close()
	pg := &page{url: resp.Request.URL.String(), status: resp.StatusCode, contentType: resp.Header.Get("Content-Type")}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc, err := resp.Location()
		if err != nil {
			return nil, fmt.Errorf("WebFetch: %s answered %s without a usable Location", u, resp.Status)
		}
		pg.redirect = loc.String()
		return pg, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, w.cfg.MaxBytes+1))
	if err != nil {
		return nil, describeFetchError(u, err, w.cfg.Timeout)
	}
	if int64(len(body)) > w.cfg.MaxBytes {
		body, pg.truncated = body[:w.cfg.MaxBytes], true
	}
	pg.bytes = len(body)
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("WebFetch: %s answered HTTP %s%s", pg.url, resp.Status, snippet(body))
	}
	md, err := toMarkdown(pg.contentType, body, resp.Request.URL)
	if err != nil {
		return nil, fmt.Errorf("WebFetch: %s: %w", pg.url, err)
	}
	pg.markdown = md
	return pg, nil
}

func describeFetchError(u *url.URL, err error, timeout time.Duration) error {
	var blocked *blockedError
	switch {
	case errors.As(err, &blocked):
		return fmt.Errorf("WebFetch refused %s: %v", u, blocked)
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout"):
		return fmt.Errorf("WebFetch: %s did not answer within %s", u, timeout)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("WebFetch: fetching %s was interrupted", u)
	}
	return fmt.Errorf("WebFetch could not fetch %s: %v", u, err)
}

func snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return ": " + strings.ToValidUTF8(s, "")
}

func (w *WebFetch) result(ctx context.Context, in fetchInput, pg *page, cached bool) tool.Result {
	meta := map[string]any{"url": pg.url, "status_code": pg.status, "cached": cached}
	if pg.redirect != "" {
		meta["redirect_url"] = pg.redirect
		return tool.Result{Meta: meta, Content: fmt.Sprintf(
			"REDIRECT DETECTED: The URL redirects to a different host.\n\nOriginal URL: %s\nRedirect URL: %s\nStatus: %d %s\n\n"+
				"To complete your request, fetch the redirect URL with a new WebFetch call (url: %q, same prompt).",
			in.URL, pg.redirect, pg.status, http.StatusText(pg.status), pg.redirect)}
	}
	meta["bytes"] = pg.bytes
	meta["content_type"] = pg.contentType
	content, cut := capChars(pg.markdown, maxContentChars)
	var notes []string
	if pg.truncated {
		notes = append(notes, fmt.Sprintf("[The response was larger than %d MiB and was cut.]", w.cfg.MaxBytes>>20))
	}
	if w.cfg.Summarizer != nil {
		answer, err := w.cfg.Summarizer.Summarize(ctx, in.Prompt, content)
		if err == nil {
			meta["summarized"] = true
			return tool.Result{Content: strings.Join(append([]string{answer}, notes...), "\n\n"), Meta: meta}
		}
		notes = append(notes, fmt.Sprintf("[The prompt could not be applied by the summarizing model (%v); here is the page itself.]", err))
	}
	if cut {
		meta["truncated"] = true
		notes = append(notes, fmt.Sprintf("[Content truncated at %d characters.]", maxContentChars))
	}
	return tool.Result{Content: strings.Join(append([]string{content}, notes...), "\n\n"), Meta: meta}
}

func capChars(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	r := []rune(s)
	if len(r) <= n {
		return s, false
	}
	return string(r[:n]), true
}
