package provider

import "context"

// routed is one provider whose models speak different protocols: OpenAI
// serves most models through Chat Completions and some (Codex, the -pro
// models) only through Responses.
type routed struct {
	chat, responses Provider
	viaResponses    map[string]bool
}

func newRouted(chat, responses Provider, responsesModels []string) *routed {
	r := &routed{chat: chat, responses: responses, viaResponses: map[string]bool{}}
	for _, m := range responsesModels {
		r.viaResponses[m] = true
	}
	return r
}

func (r *routed) Name() string { return r.chat.Name() }

func (r *routed) Stream(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	if r.viaResponses[req.Model] {
		return r.responses.Stream(ctx, req, onDelta)
	}
	return r.chat.Stream(ctx, req, onDelta)
}
