package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
)

// Button data: "p" + the decision letter + ":" + the request id.
const (
	pressOnce   = "po:"
	pressAlways = "pa:"
	pressDeny   = "pd:"
)

// questionKey names a question's message: a request shown in each chat
// that follows the session (two chats bound to one session each have
// their own message to edit when it is answered).
type questionKey struct{ request, chat string }

// question is a permission question shown in a chat.
type question struct {
	chat      Chat
	messageID string
	text      string
	kind      permission.Interaction // "" for a tool's permission
	verdict   string                 // how this chat's own answer is marked, when set
}

// ask shows a permission_request as a message with buttons: the summary,
// the reason and the diff (inline when short, else as a file).
func (b *Bridge) ask(ctx context.Context, chat Chat, e event.Event) {
	if kindOf(e) != "" && b.askInteraction(ctx, chat, e) {
		return
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "🔐 Permission needed: %s", firstNonEmpty(e.Summary, toolLine(e.ToolName, e.Input)))
	if e.Message != "" {
		fmt.Fprintf(&sb, "\n%s", e.Message)
	}
	lim := b.plat.Limits().MaxText
	if e.Diff != "" {
		if runeLen(e.Diff)+sb.Len()+16 < min(lim, 3000) {
			fmt.Fprintf(&sb, "\n```\n%s\n```", strings.TrimRight(e.Diff, "\n"))
		} else if err := b.plat.SendFile(ctx, chat, "proposed.diff", []byte(e.Diff), "Proposed change: "+e.Summary); err != nil {
			b.logf("send diff: %v", err)
		}
	}
	text := sb.String()
	buttons := []Button{{Label: "Allow once", Data: pressOnce + e.RequestID}}
	if e.Suggestion != "" { // "allow always" is offered
		buttons = append(buttons, Button{Label: "Allow for this session", Data: pressAlways + e.RequestID})
	}
	buttons = append(buttons, Button{Label: "Deny", Data: pressDeny + e.RequestID})
	id, err := b.plat.SendButtons(ctx, chat, text, buttons)
	if err != nil {
		b.logf("ask in %s: %v", chat.Key(), err)
		return
	}
	b.mu.Lock()
	if b.questions == nil {
		b.questions = map[questionKey]question{}
	}
	b.questions[questionKey{e.RequestID, chat.Key()}] = question{chat: chat, messageID: id, text: text}
	b.mu.Unlock()
}

// answered edits a question's message in chat once anyone (a button in
// any chat, the web UI, the terminal) answered it: the buttons go, the
// answer stays.
func (b *Bridge) answered(ctx context.Context, chat Chat, e event.Event) {
	b.mu.Lock()
	key := questionKey{e.RequestID, chat.Key()}
	q, ok := b.questions[key]
	delete(b.questions, key)
	if c := b.chats[chat.Key()]; ok && c != nil && c.asking != nil && c.asking.requestID == e.RequestID {
		c.asking = nil
	}
	b.mu.Unlock()
	if !ok {
		return
	}
	verdict := map[string]string{permission.AllowOnce: "✅ Allowed once", permission.AllowAlways: "✅ Allowed for this session",
		permission.DenyCall: "❌ Denied"}[e.Decision]
	if q.kind != "" {
		verdict = interactionVerdict(q, e)
	}
	if by, _ := e.Meta["by"].(string); by != "" {
		verdict += " by " + by
	}
	if err := b.plat.Edit(ctx, q.chat, q.messageID, q.text+"\n\n"+firstNonEmpty(verdict, e.Decision)); err != nil {
		b.logf("edit question in %s: %v", q.chat.Key(), err)
	}
}

// press answers a permission question from its button; the first answer
// from any front end wins, a later press is told so.
func (b *Bridge) press(ctx context.Context, u Update) {
	if b.pressInteraction(ctx, u) {
		return
	}
	p := *u.Press
	var ans permission.Answer
	var id string
	switch {
	case strings.HasPrefix(p.Data, pressOnce):
		ans.Decision, id = permission.AllowOnce, strings.TrimPrefix(p.Data, pressOnce)
	case strings.HasPrefix(p.Data, pressAlways):
		ans.Decision, ans.Scope, id = permission.AllowAlways, permission.ScopeSession, strings.TrimPrefix(p.Data, pressAlways)
	case strings.HasPrefix(p.Data, pressDeny):
		ans.Decision, id = permission.DenyCall, strings.TrimPrefix(p.Data, pressDeny)
		ans.Message = "The user denied this from " + b.plat.Name() + "."
	default:
		b.notice(ctx, p, "This button is not tandem's.")
		return
	}
	ans.By = b.plat.Name() + ":" + firstNonEmpty(u.UserName, u.User)
	c := b.state(u.Chat)
	b.mu.Lock()
	att := c.att
	b.mu.Unlock()
	err := errors.New("no session")
	if att != nil {
		err = att.Reply(ctx, id, ans)
	}
	switch {
	case err == nil:
		b.notice(ctx, p, "")
	case errors.Is(err, permission.ErrUnknownRequest), errors.Is(err, permission.ErrAlreadyAnswered), att == nil:
		b.notice(ctx, p, "Already answered.")
	default:
		b.notice(ctx, p, err.Error())
	}
}

func (b *Bridge) notice(ctx context.Context, p Press, text string) {
	if err := b.plat.AnswerPress(ctx, p, text); err != nil {
		b.logf("answer press: %v", err)
	}
}

// dropQuestions marks the chat's questions still open when its turn
// ended (interrupted, failed) as no longer asked, buttons removed.
func (b *Bridge) dropQuestions(ctx context.Context, chat Chat) {
	b.mu.Lock()
	if c := b.chats[chat.Key()]; c != nil {
		c.asking = nil
	}
	var open []question
	for id, q := range b.questions {
		if q.chat == chat {
			open = append(open, q)
			delete(b.questions, id)
		}
	}
	b.mu.Unlock()
	for _, q := range open {
		if err := b.plat.Edit(ctx, q.chat, q.messageID, q.text+"\n\n(no longer asked: the turn ended)"); err != nil {
			b.logf("edit question in %s: %v", q.chat.Key(), err)
		}
	}
}
