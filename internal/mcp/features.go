package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandem-agent/tandem/internal/message"
)

// ResourceInfo describes one resource (or resource template) of a server.
type ResourceInfo struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
	// Template is set for URI templates (RFC 6570) instead of URI.
	Template string `json:"uriTemplate,omitempty"`
}

// Resources lists the cached resources of one server, or of all connected
// servers when server is "".
func (m *Manager) Resources(server string) ([]ResourceInfo, error) {
	servers, err := m.pick(server)
	if err != nil {
		return nil, err
	}
	var out []ResourceInfo
	for _, s := range servers {
		s.mu.Lock()
		for _, r := range s.resources {
			out = append(out, ResourceInfo{Server: s.name, URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description})
		}
		for _, t := range s.templates {
			out = append(out, ResourceInfo{Server: s.name, Template: t.URITemplate, Name: t.Name, MIMEType: t.MIMEType, Description: t.Description})
		}
		s.mu.Unlock()
	}
	return out, nil
}

// pick returns the named server, or every server when name is "".
func (m *Manager) pick(name string) ([]*server, error) {
	if name == "" {
		return m.lockedServers(), nil
	}
	s, err := m.get(name)
	if err != nil {
		return nil, err
	}
	return []*server{s}, nil
}

// ResourceContent is one part of a read resource.
type ResourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// ReadResource reads uri from server.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) ([]ResourceContent, error) {
	sess, ctx, cancel, err := m.connected(ctx, server)
	if err != nil {
		return nil, err
	}
	defer cancel()
	res, err := sess.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: read resource %s: %w", server, uri, err)
	}
	out := make([]ResourceContent, 0, len(res.Contents))
	for _, c := range res.Contents {
		if c != nil {
			out = append(out, ResourceContent{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob})
		}
	}
	return out, nil
}

// PromptInfo describes one prompt a server offers.
type PromptInfo struct {
	Server      string           `json:"server"`
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompts lists the prompts of all connected servers, sorted by server and
// name. Claude Code shows them as /mcp__server__prompt commands.
func (m *Manager) Prompts() []PromptInfo {
	var out []PromptInfo
	for _, s := range m.lockedServers() {
		s.mu.Lock()
		for _, p := range s.prompts {
			pi := PromptInfo{Server: s.name, Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				if a != nil {
					pi.Arguments = append(pi.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			out = append(out, pi)
		}
		s.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// PromptResult is a rendered prompt: messages ready to put into the
// conversation.
type PromptResult struct {
	Description string            `json:"description,omitempty"`
	Messages    []message.Message `json:"messages"`
}

// GetPrompt renders a prompt with its arguments.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*PromptResult, error) {
	sess, ctx, cancel, err := m.connected(ctx, server)
	if err != nil {
		return nil, err
	}
	defer cancel()
	res, err := sess.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: get prompt %s: %w", server, name, err)
	}
	out := &PromptResult{Description: res.Description}
	for _, pm := range res.Messages {
		if pm == nil {
			continue
		}
		role := message.User
		if pm.Role == "assistant" {
			role = message.Assistant
		}
		out.Messages = append(out.Messages, message.Message{Role: role, Content: []message.Block{contentBlock(pm.Content)}})
	}
	return out, nil
}

// contentBlock converts one prompt content item to a message block.
func contentBlock(c sdk.Content) message.Block {
	switch c := c.(type) {
	case *sdk.TextContent:
		return message.TextBlock(c.Text)
	case *sdk.ImageContent:
		return message.Block{Type: message.Image, MediaType: c.MIMEType, ImageData: base64.StdEncoding.EncodeToString(c.Data)}
	case *sdk.EmbeddedResource:
		return message.TextBlock(resourceText(c.Resource))
	case *sdk.ResourceLink:
		return message.TextBlock(describeLink(c))
	default:
		return message.TextBlock(fmt.Sprintf("[%T content not shown]", c))
	}
}

// connected returns the named server's live session and a context bounded
// by the server's call timeout, or an error saying why it is unavailable.
func (m *Manager) connected(ctx context.Context, server string) (*session, context.Context, context.CancelFunc, error) {
	s, err := m.get(server)
	if err != nil {
		return nil, nil, nil, err
	}
	sess, st := s.current()
	if sess == nil {
		return nil, nil, nil, fmt.Errorf("%s", s.unavailable(st))
	}
	ctx, cancel := context.WithTimeout(ctx, s.config().CallTimeout())
	return sess, ctx, cancel, nil
}
