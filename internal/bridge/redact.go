package bridge

import (
	"context"

	"github.com/tandem-agent/tandem/internal/secrets"
)

// redacting is a Platform whose every outgoing text and file passes
// through the redactor: the one place the bridge's output is cleaned, so
// no path to the chat forgets it.
type redacting struct {
	Platform
	r *secrets.Redactor
}

func (p *redacting) Send(ctx context.Context, chat Chat, text string) (string, error) {
	return p.Platform.Send(ctx, chat, p.r.Redact(text))
}

func (p *redacting) Edit(ctx context.Context, chat Chat, id, text string) error {
	return p.Platform.Edit(ctx, chat, id, p.r.Redact(text))
}

func (p *redacting) SendFile(ctx context.Context, chat Chat, name string, data []byte, caption string) error {
	return p.Platform.SendFile(ctx, chat, name, []byte(p.r.Redact(string(data))), p.r.Redact(caption))
}

func (p *redacting) SendButtons(ctx context.Context, chat Chat, text string, buttons []Button) (string, error) {
	return p.Platform.SendButtons(ctx, chat, p.r.Redact(text), buttons)
}

func (p *redacting) AnswerPress(ctx context.Context, pr Press, notice string) error {
	return p.Platform.AnswerPress(ctx, pr, p.r.Redact(notice))
}
