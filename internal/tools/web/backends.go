package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Brave searches with the Brave Search API (BRAVE_API_KEY).
type Brave struct {
	APIKey  string
	BaseURL string // default https://api.search.brave.com/res/v1/web/search
	Client  *http.Client
}

// Tavily searches with the Tavily API (TAVILY_API_KEY).
type Tavily struct {
	APIKey  string
	BaseURL string // default https://api.tavily.com/search
	Client  *http.Client
}

// SearcherFromEnv returns a backend for the first API key set (Brave, then
// Tavily), or nil when none is.
func SearcherFromEnv(getenv func(string) string) Searcher {
	if k := strings.TrimSpace(getenv("BRAVE_API_KEY")); k != "" {
		return &Brave{APIKey: k}
	}
	if k := strings.TrimSpace(getenv("TAVILY_API_KEY")); k != "" {
		return &Tavily{APIKey: k}
	}
	return nil
}

func httpClient(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// Search implements Searcher. Domain filters become site: operators, and
// the tool filters the results again.
func (b *Brave) Search(ctx context.Context, query string, opts SearchOptions) ([]SearchResult, error) {
	base := b.BaseURL
	if base == "" {
		base = "https://api.search.brave.com/res/v1/web/search"
	}
	q := query
	if len(opts.AllowedDomains) > 0 {
		sites := make([]string, len(opts.AllowedDomains))
		for i, d := range opts.AllowedDomains {
			sites[i] = "site:" + d
		}
		q += " (" + strings.Join(sites, " OR ") + ")"
	}
	for _, d := range opts.BlockedDomains {
		q += " -site:" + d
	}
	v := url.Values{"q": {q}}
	if opts.Count > 0 {
		v.Set("count", strconv.Itoa(min(opts.Count, 20)))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"?"+v.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("brave search request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.APIKey)
	var body struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := doJSON(httpClient(b.Client), req, "Brave Search", &body); err != nil {
		return nil, err
	}
	out := make([]SearchResult, 0, len(body.Web.Results))
	for _, r := range body.Web.Results {
		out = append(out, SearchResult{Title: stripTags(r.Title), URL: r.URL, Snippet: stripTags(r.Description)})
	}
	return out, nil
}

// Search implements Searcher.
func (t *Tavily) Search(ctx context.Context, query string, opts SearchOptions) ([]SearchResult, error) {
	base := t.BaseURL
	if base == "" {
		base = "https://api.tavily.com/search"
	}
	payload := map[string]any{"query": query}
	if opts.Count > 0 {
		payload["max_results"] = min(opts.Count, 20)
	}
	if len(opts.AllowedDomains) > 0 {
		payload["include_domains"] = opts.AllowedDomains
	}
	if len(opts.BlockedDomains) > 0 {
		payload["exclude_domains"] = opts.BlockedDomains
	}
	buf, _ := json.Marshal(payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base, bytes.NewReader(buf))
	if err != nil {
		return nil, fmt.Errorf("tavily search request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.APIKey)
	var body struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := doJSON(httpClient(t.Client), req, "Tavily", &body); err != nil {
		return nil, err
	}
	out := make([]SearchResult, 0, len(body.Results))
	for _, r := range body.Results {
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}

func doJSON(c *http.Client, req *http.Request, who string, v any) error {
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", who, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("%s: read response: %w", who, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(data))
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			hint = " (check the API key)"
		}
		return fmt.Errorf("%s answered HTTP %s%s: %s", who, resp.Status, hint, msg)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: unexpected response: %w", who, err)
	}
	return nil
}

// stripTags removes the <strong> highlighting Brave puts in snippets.
func stripTags(s string) string {
	var sb strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
