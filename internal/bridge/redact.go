package bridge

import (
	"context"

	"github.com/tandem-agent/tandem/internal/secrets"
)

// redacting is a Platform whose every outgoing text and file passes
// through the redactor: the one place the bridge's output is cleaned, so
// no path to the chat forgets it. That is every string a chat shows:
// texts, captions, file names and button labels (the model writes
// AskUserQuestion's options, which become buttons).
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
	return p.Platform.SendFile(ctx, chat, p.r.Redact(name), []byte(p.r.Redact(string(data))), p.r.Redact(caption))
}

func (p *redacting) SendButtons(ctx context.Context, chat Chat, text string, buttons []Button) (string, error) {
	shown := make([]Button, len(buttons))
	for i, b := range buttons {
		shown[i] = Button{Label: p.r.Redact(b.Label), Data: b.Data}
	}
	return p.Platform.SendButtons(ctx, chat, p.r.Redact(text), shown)
}

func (p *redacting) AnswerPress(ctx context.Context, pr Press, notice string) error {
	return p.Platform.AnswerPress(ctx, pr, p.r.Redact(notice))
}
