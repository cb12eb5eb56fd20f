package web

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// What the web tools say of themselves to front ends (tool.Kinded,
// tool.Summarizer).

func (*WebFetch) Kind() tool.Kind  { return tool.KindFetch }
func (*WebSearch) Kind() tool.Kind { return tool.KindFetch }

func (*WebFetch) Summary(input json.RawMessage) string { return "Fetch " + tool.Str(input, "url") }
func (*WebSearch) Summary(input json.RawMessage) string {
	return "Search the web: " + tool.Str(input, "query")
}
