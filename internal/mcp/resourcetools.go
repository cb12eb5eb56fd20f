package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

// Claude Code's names for the resource tools.
const (
	ListResourcesToolName = "ListMcpResources"
	ReadResourceToolName  = "ReadMcpResource"
)

// ResourceTools returns ListMcpResources and ReadMcpResource bound to m.
func (m *Manager) ResourceTools() []tool.Tool {
	return []tool.Tool{&listResourcesTool{m}, &readResourceTool{m}}
}

type listResourcesTool struct{ m *Manager }

func (*listResourcesTool) Name() string   { return ListResourcesToolName }
func (*listResourcesTool) ReadOnly() bool { return true }
func (*listResourcesTool) Description() string {
	return "Lists the resources (files, records, documents) that connected MCP servers offer. " +
		"Pass server to list one server's resources; omit it for all. Read one with ReadMcpResource."
}
func (*listResourcesTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"Optional server name to filter resources by"}},"additionalProperties":false}`)
}

func (t *listResourcesTool) Execute(_ context.Context, call tool.Call) (tool.Result, error) {
	var in struct {
		Server string `json:"server"`
	}
	if err := decodeInput(call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	rs, err := t.m.Resources(in.Server)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if rs == nil {
		rs = []ResourceInfo{}
	}
	b, _ := json.MarshalIndent(rs, "", "  ")
	text := string(b)
	if len(rs) == 0 {
		text = "No resources found. MCP servers may still provide tools even if they have no resources."
	}
	return tool.Result{Content: text, Meta: map[string]any{"count": len(rs)}}, nil
}

type readResourceTool struct{ m *Manager }

func (*readResourceTool) Name() string   { return ReadResourceToolName }
func (*readResourceTool) ReadOnly() bool { return true }
func (*readResourceTool) Description() string {
	return "Reads a resource from an MCP server by its URI (see ListMcpResources)."
}
func (*readResourceTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"The MCP server name"},"uri":{"type":"string","description":"The resource URI to read"}},"required":["server","uri"],"additionalProperties":false}`)
}

func (t *readResourceTool) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	var in struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if err := decodeInput(call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if in.Server == "" || in.URI == "" {
		return tool.ErrorResult("ReadMcpResource needs both server and uri"), nil
	}
	cs, err := t.m.ReadResource(ctx, in.Server, in.URI)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	var parts []string
	for _, c := range cs {
		if c.Text != "" || len(c.Blob) == 0 {
			parts = append(parts, fmt.Sprintf("[resource %s%s]\n%s", c.URI, mimeSuffix(c.MIMEType), c.Text))
		} else {
			parts = append(parts, fmt.Sprintf("[resource %s%s: %d bytes of binary data not shown]", c.URI, mimeSuffix(c.MIMEType), len(c.Blob)))
		}
	}
	text, cut := truncate(strings.Join(parts, "\n\n"), MaxResultChars)
	r := tool.Result{Content: text, Meta: map[string]any{"mcp_server": in.Server, "uri": in.URI}}
	if cut {
		r.Meta["truncated"] = true
	}
	return r, nil
}

func mimeSuffix(m string) string {
	if m == "" {
		return ""
	}
	return ", " + m
}

func decodeInput(raw json.RawMessage, v any) error {
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("input must be a JSON object: %v", err)
	}
	return nil
}
