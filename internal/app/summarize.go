package app

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// summarizer applies WebFetch's prompt to fetched content with the
// configured small model, so a long page costs the main model a few
// hundred tokens instead of tens of thousands.
type summarizer struct {
	models agent.Resolver
	spec   string
}

// maxSummaryInput bounds what is sent to the small model.
const maxSummaryInput = 400_000

func (s summarizer) Summarize(ctx context.Context, prompt, content string) (string, error) {
	m, err := s.models.Resolve(s.spec)
	if err != nil {
		return "", fmt.Errorf("small model %s: %w", s.spec, err)
	}
	if len(content) > maxSummaryInput {
		content = content[:maxSummaryInput] + "\n[... content truncated]"
	}
	req := provider.Request{
		Model:     m.ID,
		System:    []string{"You answer a question about a web page's content. Use only the content given. Be concise; quote exact text where it matters (code, numbers, commands)."},
		Messages:  []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("Web page content:\n\n" + content + "\n\n---\n\n" + prompt)}}},
		MaxTokens: 4096,
	}
	resp, err := m.Provider.Stream(ctx, req, func(provider.Delta) {})
	if err != nil {
		return "", err
	}
	return message.Message{Content: resp.Content}.PlainText(), nil
}
