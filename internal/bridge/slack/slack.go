// Package slack is the chat bridge's Slack platform over
// github.com/slack-go/slack: updates over Socket Mode (a WebSocket the app
// opens with its app-level token, every envelope acknowledged) or the
// Events API (an HTTP endpoint checking Slack's request signature),
// answers by chat.postMessage/chat.update, files by the files.uploadV2
// flow, permission buttons as Block Kit buttons answered through
// block_actions payloads, and one slash command (/tandem new proj) that
// reaches the chat's commands.
//
// Where a conversation lives: in a direct message the whole DM is one
// chat; in a channel a message mentioning the bot starts a thread (the
// chat is that thread) and every message in a thread is heard without a
// mention.
package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackutilsx"

	"github.com/tandem-agent/tandem/internal/bridge"
)

// Config is one Slack app.
type Config struct {
	// BotToken is the bot user's OAuth token (xoxb-...): every Web API
	// call.
	BotToken string
	// AppToken is the app-level token (xapp-..., scope
	// connections:write) that opens Socket Mode connections; unused with
	// Events.
	AppToken string
	// APIURL is the Web API's address ("": https://slack.com/api/).
	APIURL string
	// Events, when set, receives updates over the Events API (HTTP)
	// instead of Socket Mode.
	Events *Events
	// SlashCommand is the app's slash command ("": /tandem, see
	// slash.go).
	SlashCommand string
}

// Events is the HTTP endpoint Slack posts events and interactions to.
type Events struct {
	// Listen is the local address the endpoint is served on
	// ("127.0.0.1:3000"; a reverse proxy with TLS in front of it). The
	// app's Event Subscriptions and Interactivity request URLs both point
	// at it.
	Listen string
	// SigningSecret checks every request's X-Slack-Signature.
	SigningSecret string
}

// Platform is a Slack app as a bridge.Platform.
type Platform struct {
	cfg Config
	api *slack.Client

	mu      sync.Mutex
	botUser string // the bot's user id (auth.test), once connected
	// addr is the Events API endpoint's address once it listens (for
	// tests that listen on port 0).
	addr chan string
}

// New checks cfg and returns the platform; Receive connects.
func New(cfg Config) (*Platform, error) {
	if !strings.HasPrefix(cfg.BotToken, "xoxb-") {
		return nil, errors.New("slack: bot_token must be the app's bot token (xoxb-..., OAuth & Permissions in the app's settings)")
	}
	if e := cfg.Events; e != nil {
		if e.Listen == "" || e.SigningSecret == "" {
			return nil, errors.New("slack events: listen and signing_secret are both needed (or leave events out to use Socket Mode)")
		}
	} else if !strings.HasPrefix(cfg.AppToken, "xapp-") {
		return nil, errors.New("slack: Socket Mode needs app_token, the app-level token (xapp-..., scope connections:write); or configure events to use the Events API")
	}
	if c := cfg.SlashCommand; c != "" && (!strings.HasPrefix(c, "/") || len(c) < 2 || strings.ContainsAny(c, " \t\n")) {
		return nil, fmt.Errorf("slack: slash_command %q is not a command name such as /tandem", c)
	}
	opts := []slack.Option{
		slack.OptionAppLevelToken(cfg.AppToken),
		slack.OptionHTTPClient(&http.Client{Timeout: 30 * time.Second}),
		// A 429 waits for Slack's Retry-After and tries again (after
		// OptionHTTPClient, which would replace the retrying client).
		slack.OptionRetry(2),
	}
	if cfg.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(strings.TrimRight(cfg.APIURL, "/")+"/"))
	}
	return &Platform{cfg: cfg, api: slack.New(cfg.BotToken, opts...), addr: make(chan string, 1)}, nil
}

// Name implements bridge.Platform.
func (p *Platform) Name() string { return "slack" }

// Limits: Slack advises at most 4,000 characters of message text and
// about one message a second per channel (chat.update is a Tier 3
// method).
func (p *Platform) Limits() bridge.Limits {
	return bridge.Limits{MaxText: 3900, EditEvery: 1200 * time.Millisecond}
}

// EventsAddr returns the address the Events API endpoint listens on, once
// it does.
func (p *Platform) EventsAddr(ctx context.Context) (string, error) {
	select {
	case a := <-p.addr:
		p.addr <- a
		return a, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// hello checks the bot token (auth.test) and learns the bot's user id, so
// the bot's own messages are never taken as prompts.
func (p *Platform) hello(ctx context.Context) error {
	r, err := p.api.AuthTestContext(ctx)
	if err != nil {
		return fmt.Errorf("connect to Slack (auth.test): %w", err)
	}
	p.mu.Lock()
	p.botUser = r.UserID
	p.mu.Unlock()
	return nil
}

func (p *Platform) bot() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.botUser
}

// Send implements bridge.Platform. Text is escaped (&, <, >): nothing the
// model writes becomes a mention (<!channel>) or a disguised link.
func (p *Platform) Send(ctx context.Context, c bridge.Chat, text string) (string, error) {
	return p.post(ctx, c, slack.MsgOptionText(text, true))
}

func (p *Platform) post(ctx context.Context, c bridge.Chat, opts ...slack.MsgOption) (string, error) {
	if c.Thread != "" {
		opts = append(opts, slack.MsgOptionTS(c.Thread))
	}
	_, ts, err := p.api.PostMessageContext(ctx, c.ID, opts...)
	if err != nil {
		return "", fmt.Errorf("chat.postMessage: %w", err)
	}
	return ts, nil
}

// SendButtons implements bridge.Platform: a section with the text and an
// actions block of buttons (the text is also the notification's).
func (p *Platform) SendButtons(ctx context.Context, c bridge.Chat, text string, buttons []bridge.Button) (string, error) {
	return p.post(ctx, c, slack.MsgOptionText(text, true), slack.MsgOptionBlocks(questionBlocks(text, buttons)...))
}

// maxSection is the longest text of a section block.
const maxSection = 3000

func questionBlocks(text string, buttons []bridge.Button) []slack.Block {
	shown := slackutilsx.EscapeMessage(text)
	if r := []rune(shown); len(r) > maxSection {
		shown = string(r[:maxSection-2]) + " …"
	}
	els := make([]slack.BlockElement, len(buttons))
	for i, bt := range buttons {
		b := slack.NewButtonBlockElement(fmt.Sprintf("tandem_%d", i), bt.Data, slack.NewTextBlockObject(slack.PlainTextType, bt.Label, false, false))
		switch {
		case i == 0:
			b.Style = slack.StylePrimary
		case strings.HasPrefix(bt.Label, "Deny"):
			b.Style = slack.StyleDanger
		}
		els[i] = b
	}
	return []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, shown, false, false), nil, nil),
		slack.NewActionBlock("tandem_question", els...),
	}
}

// Edit implements bridge.Platform: the new text, and no blocks (a
// question's buttons go).
func (p *Platform) Edit(ctx context.Context, c bridge.Chat, messageID, text string) error {
	_, _, _, err := p.api.UpdateMessageContext(ctx, c.ID, messageID, slack.MsgOptionText(text, true), slack.MsgOptionBlocks())
	if err != nil {
		return fmt.Errorf("chat.update: %w", err)
	}
	return nil
}

// SendFile implements bridge.Platform over files.uploadV2
// (files.getUploadURLExternal, the upload, files.completeUploadExternal).
func (p *Platform) SendFile(ctx context.Context, c bridge.Chat, name string, data []byte, caption string) error {
	if len(data) == 0 {
		data = []byte("\n") // Slack refuses an empty file
	}
	_, err := p.api.UploadFileContext(ctx, slack.UploadFileParameters{
		Reader: bytes.NewReader(data), FileSize: len(data), Filename: name, Title: name,
		InitialComment: slackutilsx.EscapeMessage(caption), Channel: c.ID, ThreadTimestamp: c.Thread,
	})
	if err != nil {
		return fmt.Errorf("upload %s: %w", name, err)
	}
	return nil
}

// AnswerPress implements bridge.Platform. The press was acknowledged when
// it arrived (Slack wants that within 3 seconds); a notice goes to the
// presser alone (chat.postEphemeral).
func (p *Platform) AnswerPress(ctx context.Context, pr bridge.Press, notice string) error {
	if notice == "" {
		return nil
	}
	ch, user, thread, err := parsePressID(pr.ID)
	if err != nil {
		return err
	}
	opts := []slack.MsgOption{slack.MsgOptionText(notice, true)}
	if thread != "" {
		opts = append(opts, slack.MsgOptionTS(thread))
	}
	if _, err := p.api.PostEphemeralContext(ctx, ch, user, opts...); err != nil {
		return fmt.Errorf("chat.postEphemeral: %w", err)
	}
	return nil
}

// pressID is what AnswerPress needs of a press: where and to whom.
func pressID(channel, user, thread string) string {
	return channel + " " + user + " " + thread
}

func parsePressID(id string) (channel, user, thread string, err error) {
	f := strings.Split(id, " ")
	if len(f) != 3 || f[0] == "" || f[1] == "" {
		return "", "", "", fmt.Errorf("slack press id %q is not channel, user and thread", id)
	}
	return f[0], f[1], f[2], nil
}
