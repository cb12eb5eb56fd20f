package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permit"
)

// A call that is a question to the user (ExitPlanMode's plan,
// AskUserQuestion's questions: Meta["kind"] of the permission_request)
// is not a yes/no: the chat shows the plan with its choices of mode, or
// each question with its options as buttons, one after the other; a text
// message sent while one waits is the typed answer ("Other"), or for a
// plan the feedback to keep planning with, as Claude Code's dialogs take
// typed text.

// Button data of interactions: "i" + what + ":" + the request id, then
// ":" + the option's index for an option.
const (
	pressApprove     = "ia:" // approve the plan, work in normal mode
	pressApproveEdit = "ie:" // approve the plan, work in acceptEdits mode
	pressKeep        = "ik:" // keep planning (deny; the next message is the feedback)
	pressOption      = "io:" // pick (or, multi-select, toggle) an option
	pressDone        = "id:" // multi-select: the picks are the answer
	pressSkip        = "is:" // skip the questions (deny)
)

// interaction is a plan or questions waiting in a chat. Its progress is
// guarded by mu, held for a whole press or typed answer: a platform may
// deliver updates concurrently (the Feishu SDK handles each event on a
// goroutine of its own), and two presses must not advance it at once.
type interaction struct {
	mu        sync.Mutex
	requestID string
	kind      permission.Interaction
	plan      string
	qs        []permit.AskedQuestion
	index     int          // the question shown
	picked    map[int]bool // multi-select picks of the question shown
	answers   map[string]string
}

func kindOf(e event.Event) permission.Interaction {
	k, _ := e.Meta["kind"].(string)
	return permission.Interaction(k)
}

// askInteraction shows a plan to approve or the first of the model's
// questions. It reports false when the input does not decode, so the
// plain question is shown instead (the engine checked it already).
func (b *Bridge) askInteraction(ctx context.Context, chat Chat, e event.Event) bool {
	it := &interaction{requestID: e.RequestID, kind: kindOf(e), answers: map[string]string{}, picked: map[int]bool{}}
	switch it.kind {
	case permission.PlanApproval:
		p, err := permit.ParsePlan(e.Input)
		if err != nil {
			return false
		}
		it.plan = p.Plan
	case permission.UserQuestion:
		q, err := permit.ParseQuestions(e.Input)
		if err != nil {
			return false
		}
		it.qs = q.Questions
	default:
		return false
	}
	c := b.state(chat)
	b.mu.Lock()
	c.asking = it
	b.mu.Unlock()
	b.showInteraction(ctx, chat, it)
	return true
}

// showInteraction sends the interaction's current step with its buttons
// and records it as the request's open question.
func (b *Bridge) showInteraction(ctx context.Context, chat Chat, it *interaction) {
	var text string
	var buttons []Button
	id := it.requestID
	if it.kind == permission.PlanApproval {
		text = "📋 Plan to approve:\n\n" + it.plan + "\n\nApprove to start working, or keep planning (send your feedback as the next message)."
		if lim := b.plat.Limits().MaxText; runeLen(text) > lim {
			if err := b.plat.SendFile(ctx, chat, "plan.md", []byte(it.plan), "The plan"); err != nil {
				b.logf("send plan: %v", err)
			}
			text = "📋 A plan to approve (attached as plan.md). Approve to start working, or keep planning (send your feedback as the next message)."
		}
		buttons = []Button{{Label: "Approve", Data: pressApprove + id}, {Label: "Approve, accept edits", Data: pressApproveEdit + id},
			{Label: "Keep planning", Data: pressKeep + id}}
	} else {
		q := it.qs[it.index]
		var sb strings.Builder
		sb.WriteString("❓ ")
		if len(it.qs) > 1 {
			fmt.Fprintf(&sb, "(%d/%d) ", it.index+1, len(it.qs))
		}
		if q.Header != "" {
			fmt.Fprintf(&sb, "[%s] ", q.Header)
		}
		sb.WriteString(q.Question)
		for _, o := range q.Options {
			if o.Description != "" {
				fmt.Fprintf(&sb, "\n• %s: %s", o.Label, o.Description)
			}
		}
		if q.MultiSelect {
			sb.WriteString("\nPick any, then Done; or send your own answer as a message.")
		} else {
			sb.WriteString("\nPick one, or send your own answer as a message.")
		}
		text = sb.String()
		for i, o := range q.Options {
			label := o.Label
			if q.MultiSelect {
				label = map[bool]string{true: "☑ ", false: "☐ "}[it.picked[i]] + label
			}
			buttons = append(buttons, Button{Label: label, Data: pressOption + id + ":" + strconv.Itoa(i)})
		}
		if q.MultiSelect {
			buttons = append(buttons, Button{Label: "Done", Data: pressDone + id})
		}
		buttons = append(buttons, Button{Label: "Skip", Data: pressSkip + id})
	}
	msgID, err := b.plat.SendButtons(ctx, chat, text, buttons)
	if err != nil {
		b.logf("ask in %s: %v", chat.Key(), err)
		return
	}
	b.mu.Lock()
	if b.questions == nil {
		b.questions = map[questionKey]question{}
	}
	b.questions[questionKey{id, chat.Key()}] = question{chat: chat, messageID: msgID, text: text, kind: it.kind}
	b.mu.Unlock()
}

// pressInteraction handles an interaction's button; false when data is
// not one.
func (b *Bridge) pressInteraction(ctx context.Context, u Update) bool {
	data := u.Press.Data
	if len(data) < 3 || data[0] != 'i' || data[2] != ':' {
		return false
	}
	what, rest := data[:3], data[3:]
	c := b.state(u.Chat)
	b.mu.Lock()
	it, att := c.asking, c.att
	b.mu.Unlock()
	reqID, opt, _ := strings.Cut(rest, ":")
	if it == nil || it.requestID != reqID || att == nil {
		b.notice(ctx, *u.Press, "Already answered.")
		return true
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	by := b.plat.Name() + ":" + firstNonEmpty(u.UserName, u.User)
	switch what {
	case pressApprove, pressApproveEdit:
		mode := permission.Normal
		if what == pressApproveEdit {
			mode = permission.AcceptEdits
		}
		b.finish(ctx, u, it, permission.Answer{Decision: permission.AllowOnce, Mode: mode, By: by})
	case pressKeep:
		// The plan stays open: the next message is the feedback
		// (typedAnswer).
		b.notice(ctx, *u.Press, "Send your feedback as the next message.")
	case pressSkip:
		b.finish(ctx, u, it, permission.Answer{Decision: permission.DenyCall, By: by})
	case pressOption, pressDone:
		b.pickOption(ctx, u, it, what, opt, by)
	default:
		b.notice(ctx, *u.Press, "This button is not tandem's.")
	}
	return true
}

// pickOption records a press on one of a question's options (or Done)
// and moves to the next question or answers.
func (b *Bridge) pickOption(ctx context.Context, u Update, it *interaction, what, opt, by string) {
	if it.kind != permission.UserQuestion || it.index < 0 || it.index >= len(it.qs) {
		b.notice(ctx, *u.Press, "Already answered.")
		return
	}
	q := it.qs[it.index]
	if what == pressOption {
		i, err := strconv.Atoi(opt)
		if err != nil || i < 0 || i >= len(q.Options) {
			b.notice(ctx, *u.Press, "This button is not tandem's.")
			return
		}
		if q.MultiSelect {
			it.picked[i] = !it.picked[i]
			b.notice(ctx, *u.Press, "")
			b.reshow(ctx, u.Chat, it, "")
			return
		}
		b.notice(ctx, *u.Press, "")
		b.answerCurrent(ctx, u, it, q.Options[i].Label, by)
		return
	}
	var labels []string
	for i, o := range q.Options {
		if it.picked[i] {
			labels = append(labels, o.Label)
		}
	}
	if len(labels) == 0 {
		b.notice(ctx, *u.Press, "Pick at least one option, or send your own answer as a message.")
		return
	}
	b.notice(ctx, *u.Press, "")
	b.answerCurrent(ctx, u, it, strings.Join(labels, ", "), by)
}

// answerCurrent takes answer for the question shown: the next question
// follows, or after the last the answers go to the session.
func (b *Bridge) answerCurrent(ctx context.Context, u Update, it *interaction, answer, by string) {
	q := it.qs[it.index]
	it.answers[q.Question] = answer
	it.index++
	it.picked = map[int]bool{}
	if it.index < len(it.qs) {
		b.reshow(ctx, u.Chat, it, "→ "+answer)
		return
	}
	b.finish(ctx, u, it, permission.Answer{Decision: permission.AllowOnce, Answers: it.answers, By: by})
}

// reshow closes the step on screen (its buttons go, with note added when
// set) and shows the interaction's current step.
func (b *Bridge) reshow(ctx context.Context, chat Chat, it *interaction, note string) {
	b.mu.Lock()
	q, ok := b.questions[questionKey{it.requestID, chat.Key()}]
	b.mu.Unlock()
	if ok {
		text := q.text
		if note != "" {
			text += "\n\n" + note
		}
		if err := b.plat.Edit(ctx, chat, q.messageID, text); err != nil {
			b.logf("edit question in %s: %v", chat.Key(), err)
		}
	}
	b.showInteraction(ctx, chat, it)
}

// finish answers the interaction; the answered event then marks it in
// the chat. A reply that lost to another front end is told so.
func (b *Bridge) finish(ctx context.Context, u Update, it *interaction, ans permission.Answer) {
	c := b.state(u.Chat)
	b.mu.Lock()
	att := c.att
	if c.asking == it {
		c.asking = nil
	}
	if key := (questionKey{it.requestID, u.Chat.Key()}); ans.Mode != "" {
		if q, ok := b.questions[key]; ok {
			q.verdict = "✅ Approved: working in " + string(ans.Mode) + " mode"
			b.questions[key] = q
		}
	}
	b.mu.Unlock()
	err := errors.New("no session")
	if att != nil {
		err = att.Reply(ctx, it.requestID, ans)
	}
	if u.Press == nil {
		if err != nil {
			b.say(ctx, u.Chat, "That question was already answered.")
		}
		return
	}
	switch {
	case err == nil:
		b.notice(ctx, *u.Press, "")
	case errors.Is(err, permission.ErrUnknownRequest), errors.Is(err, permission.ErrAlreadyAnswered), att == nil:
		b.notice(ctx, *u.Press, "Already answered.")
	default:
		b.notice(ctx, *u.Press, err.Error())
	}
}

// typedAnswer takes a text message as the answer of the chat's waiting
// interaction: the typed answer of the question shown, or the feedback
// to keep planning with. False when nothing waits.
func (b *Bridge) typedAnswer(ctx context.Context, u Update) bool {
	c := b.state(u.Chat)
	b.mu.Lock()
	it := c.asking
	b.mu.Unlock()
	text := strings.TrimSpace(u.Text)
	if it == nil || text == "" {
		return false
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	by := b.plat.Name() + ":" + firstNonEmpty(u.UserName, u.User)
	if it.kind == permission.PlanApproval {
		b.finish(ctx, u, it, permission.Answer{Decision: permission.DenyCall, Message: text, By: by})
		return true
	}
	if it.index < 0 || it.index >= len(it.qs) {
		return false
	}
	b.answerCurrent(ctx, u, it, text, by)
	return true
}

// interactionVerdict is how an answered interaction is marked in the chat.
func interactionVerdict(q question, e event.Event) string {
	if q.verdict != "" && e.Decision == permission.AllowOnce {
		return q.verdict
	}
	switch {
	case q.kind == permission.PlanApproval && e.Decision == permission.AllowOnce:
		return "✅ Approved"
	case q.kind == permission.PlanApproval:
		return "↩ Keep planning"
	case e.Decision == permission.AllowOnce:
		return "✅ Answered"
	default:
		return "⏭ Skipped"
	}
}
