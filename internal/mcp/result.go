package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/tool"
)

// MaxResultChars is where a tool result's text is cut; a server can return
// megabytes, which would flood the context window.
const MaxResultChars = 50_000

// convertResult turns an MCP tool result into what the model reads: text
// parts joined, images as image blocks, embedded resources as text,
// structured content as JSON when the text parts do not already carry it.
func convertResult(res *sdk.CallToolResult) tool.Result {
	var parts []string
	var images []message.Block
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			images = append(images, message.Block{Type: message.Image, MediaType: c.MIMEType,
				ImageData: base64.StdEncoding.EncodeToString(c.Data)})
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes: not shown]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, describeLink(c))
		case *sdk.EmbeddedResource:
			parts = append(parts, resourceText(c.Resource))
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && !containsJSON(parts, b) {
			parts = append(parts, string(b))
		}
	}
	text, cut := truncate(strings.Join(parts, "\n"), MaxResultChars)
	out := tool.Result{Content: text, Images: images, IsError: res.IsError}
	if cut {
		out.Meta = map[string]any{"truncated": true}
	}
	if out.Content == "" && len(images) == 0 {
		out.Content = "(no output)"
	}
	return out
}

func describeLink(l *sdk.ResourceLink) string {
	s := "[resource link] " + l.URI
	if l.Name != "" {
		s += " (" + l.Name + ")"
	}
	if l.Description != "" {
		s += ": " + l.Description
	}
	return s
}

// resourceText renders resource contents: text as is, binary as a note
// (base64 in a context window is noise).
func resourceText(r *sdk.ResourceContents) string {
	if r == nil {
		return ""
	}
	if r.Text != "" || len(r.Blob) == 0 {
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s: %s, %d bytes of binary data not shown]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

// containsJSON reports whether a text part already is the structured
// content (servers send both for older clients).
func containsJSON(parts []string, structured []byte) bool {
	var want any
	if json.Unmarshal(structured, &want) != nil {
		return false
	}
	wantNorm, _ := json.Marshal(want)
	for _, p := range parts {
		var got any
		if json.Unmarshal([]byte(p), &got) == nil {
			if b, _ := json.Marshal(got); string(b) == string(wantNorm) {
				return true
			}
		}
	}
	return false
}

// truncate cuts s to max characters with a note saying how much was left.
func truncate(s string, max int) (string, bool) {
	r := []rune(s)
	if len(r) <= max {
		return s, false
	}
	return string(r[:max]) + fmt.Sprintf("\n\n[output truncated: showing %d of %d characters]", max, len(r)), true
}
