package providers

import (
	"context"

	"github.com/tandem-agent/tandem/internal/provider"
)

// routed is one provider whose models speak different protocols: OpenAI
// serves most models through Chat Completions and some (Codex, the -pro
// models) only through Responses.
type routed struct {
	chat, responses provider.Provider
	viaResponses    map[string]bool
}

func newRouted(chat, responses provider.Provider, responsesModels []string) *routed {
	r := &routed{chat: chat, responses: responses, viaResponses: map[string]bool{}}
	for _, m := range responsesModels {
		r.viaResponses[m] = true
	}
	return r
}

func (r *routed) Name() string { return r.chat.Name() }

func (r *routed) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	if r.viaResponses[req.Model] {
		return r.responses.Stream(ctx, req, onDelta)
	}
	return r.chat.Stream(ctx, req, onDelta)
}
