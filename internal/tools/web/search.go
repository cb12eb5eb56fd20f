package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

const searchName = "WebSearch"

//go:embed websearch.md
var searchDescription string

var searchSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 2, "description": "The search query to use"},
    "allowed_domains": {"type": "array", "items": {"type": "string"}, "description": "Only include search results from these domains"},
    "blocked_domains": {"type": "array", "items": {"type": "string"}, "description": "Never include search results from these domains"}
  },
  "required": ["query"],
  "additionalProperties": false
}`)

// SearchOptions refine a search.
type SearchOptions struct {
	AllowedDomains []string
	BlockedDomains []string
	Count          int // results wanted; backends may return fewer
}

// SearchResult is one hit.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// Searcher is a web search backend.
type Searcher interface {
	Search(ctx context.Context, query string, opts SearchOptions) ([]SearchResult, error)
}

// NoBackendMessage is the error result when no search backend is set up.
const NoBackendMessage = "WebSearch has no backend: set BRAVE_API_KEY (or TAVILY_API_KEY) or configure tools.web_search in tandem's config"

const defaultResults = 10

// WebSearch searches the web through a pluggable backend.
type WebSearch struct{ s Searcher }

// NewWebSearch returns the WebSearch tool; a nil searcher makes every call
// return NoBackendMessage.
func NewWebSearch(s Searcher) *WebSearch { return &WebSearch{s: s} }

func (*WebSearch) Name() string            { return searchName }
func (*WebSearch) Description() string     { return searchDescription }
func (*WebSearch) Schema() json.RawMessage { return searchSchema }
func (*WebSearch) ReadOnly() bool          { return true }

// Unavailable implements tool.Availability: without a backend, or with one
// that cannot serve this model (the provider's own search), every call
// would fail, so the tool is not offered.
func (w *WebSearch) Unavailable(model string) string {
	if w.s == nil {
		return NoBackendMessage
	}
	if a, ok := w.s.(tool.Availability); ok {
		return a.Unavailable(model)
	}
	return ""
}

type searchInput struct {
	Query          string   `json:"query"`
	AllowedDomains []string `json:"allowed_domains"`
	BlockedDomains []string `json:"blocked_domains"`
}

func (w *WebSearch) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	var in searchInput
	if err := tool.DecodeInput(searchName, call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString(searchName, "query", in.Query); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	q := strings.TrimSpace(in.Query)
	if len([]rune(q)) < 2 {
		return tool.ErrorResult("invalid input for WebSearch: query must be at least 2 characters long"), nil
	}
	allowed, err := cleanDomains("allowed_domains", in.AllowedDomains)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	blocked, err := cleanDomains("blocked_domains", in.BlockedDomains)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if w.s == nil {
		return tool.ErrorResult(NoBackendMessage), nil
	}
	results, err := w.s.Search(ctx, q, SearchOptions{AllowedDomains: allowed, BlockedDomains: blocked, Count: defaultResults})
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("WebSearch failed: %v", err)), nil
	}
	results = filterDomains(results, allowed, blocked)
	return formatResults(q, results), nil
}

// cleanDomains accepts "example.com", "https://example.com/x" or
// "*.example.com" and keeps the bare lower-case host.
func cleanDomains(field string, in []string) ([]string, error) {
	var out []string
	for _, d := range in {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" {
			continue
		}
		if strings.Contains(d, "://") {
			if u, err := url.Parse(d); err == nil {
				d = u.Hostname()
			}
		}
		d = strings.TrimPrefix(strings.TrimSuffix(d, "/"), "*.")
		d = strings.TrimSuffix(d, ".")
		if d == "" || strings.ContainsAny(d, " /\\?#@:\x00") {
			return nil, fmt.Errorf("invalid input for WebSearch: %s entry %q is not a domain name (e.g. \"example.com\")", field, d)
		}
		out = append(out, d)
	}
	return out, nil
}

// domainMatch reports whether host is d or a subdomain of it.
func domainMatch(host, d string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host == d || strings.HasSuffix(host, "."+d)
}

func filterDomains(rs []SearchResult, allowed, blocked []string) []SearchResult {
	var out []SearchResult
	for _, r := range rs {
		u, err := url.Parse(r.URL)
		if err != nil || u.Hostname() == "" {
			continue
		}
		h := u.Hostname()
		ok := len(allowed) == 0
		for _, d := range allowed {
			ok = ok || domainMatch(h, d)
		}
		for _, d := range blocked {
			ok = ok && !domainMatch(h, d)
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

func formatResults(q string, rs []SearchResult) tool.Result {
	meta := map[string]any{"query": q, "num_results": len(rs)}
	if len(rs) == 0 {
		return tool.Result{Content: fmt.Sprintf("Web search results for query: %q\n\nNo results found.", q), Meta: meta}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Web search results for query: %q\n\n", q)
	for i, r := range rs {
		title := strings.TrimSpace(r.Title)
		if title == "" {
			title = r.URL
		}
		fmt.Fprintf(&sb, "%d. [%s](%s)\n", i+1, title, r.URL)
		if s := strings.TrimSpace(r.Snippet); s != "" {
			fmt.Fprintf(&sb, "   %s\n", strings.ReplaceAll(s, "\n", " "))
		}
	}
	sb.WriteString("\nREMINDER: cite the sources you use in your answer as Markdown links.")
	return tool.Result{Content: sb.String(), Meta: meta}
}
