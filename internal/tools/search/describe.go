package search

import (
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/tool"
)

// What the search tools say of themselves to front ends (tool.Kinded,
// tool.Summarizer).

func (*Glob) Kind() tool.Kind { return tool.KindSearch }
func (*Grep) Kind() tool.Kind { return tool.KindSearch }

func (*Glob) Summary(input json.RawMessage) string { return "Find " + tool.Str(input, "pattern") }
func (*Grep) Summary(input json.RawMessage) string {
	return fmt.Sprintf("Search %q", tool.Str(input, "pattern"))
}
