package claudecode

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
)

// The CLI runs the session's MCP servers, so tandem's tool registry does
// not hold their tools; whether one is read-only (its readOnlyHint, which
// lets tandem's permission modes run it without asking, as under the
// native runtime) comes from the CLI's mcp_status.

// mcpStatusReply is the part of the CLI's mcp_status answer read here.
type mcpStatusReply struct {
	MCPServers []struct {
		Name  string `json:"name"`
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnly bool `json:"readOnly"`
			} `json:"annotations"`
		} `json:"tools"`
	} `json:"mcpServers"`
}

// cliNameUnsafe are the characters the CLI replaces with _ in tool names.
var cliNameUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// cliToolName is the CLI's mcp__server__tool spelling.
func cliToolName(server, tool string) string {
	return "mcp__" + cliNameUnsafe.ReplaceAllString(server, "_") + "__" + cliNameUnsafe.ReplaceAllString(tool, "_")
}

// mcpReadOnly reports whether the CLI's MCP tool name declares itself
// read-only. The CLI is asked once per turn (servers do not change their
// hints mid-session); a failed ask counts as not read-only.
func (c *controller) mcpReadOnly(ctx context.Context, name string) bool {
	if !strings.HasPrefix(name, "mcp__") {
		return false
	}
	c.mu.Lock()
	known := c.mcpRO
	c.mu.Unlock()
	if known == nil {
		known = map[string]bool{}
		ctx, cancel := context.WithTimeout(ctx, controlTimeout)
		raw, err := c.request(ctx, map[string]any{"subtype": "mcp_status"})
		cancel()
		var st mcpStatusReply
		if err == nil && json.Unmarshal(raw, &st) == nil {
			for _, s := range st.MCPServers {
				for _, t := range s.Tools {
					known[cliToolName(s.Name, t.Name)] = t.Annotations.ReadOnly
				}
			}
		}
		c.mu.Lock()
		c.mcpRO = known
		c.mu.Unlock()
	}
	return known[name]
}
