// Package discord is the chat bridge's Discord platform over
// github.com/bwmarrin/discordgo: the gateway (HELLO, IDENTIFY or RESUME,
// heartbeats) delivers MESSAGE_CREATE and INTERACTION_CREATE, answers go
// by the REST API (create and edit a message, its components as the
// permission buttons, files as attachments), a button press is answered
// with an interaction response. discordgo's rate limiter paces the REST
// calls by Discord's rate-limit headers and waits out a 429.
//
// A channel, a thread (a channel of its own in Discord) or a direct
// message is one chat.
package discord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tandem-agent/tandem/internal/bridge"
)

// Config is one Discord bot.
type Config struct {
	// Token is the bot's token (from the Developer Portal, without
	// "Bot ").
	Token string
	// APIURL is the server answering for https://discord.com ("": Discord
	// itself); the gateway's address comes from its GET /api/v9/gateway.
	APIURL string
}

// Platform is a Discord bot as a bridge.Platform.
type Platform struct {
	cfg  Config
	s    *discordgo.Session
	http *http.Client // downloads of attachments

	mu  sync.Mutex
	bot string // the bot's own user id, from READY
}

// New checks cfg and returns the platform; Receive connects.
func New(cfg Config) (*Platform, error) {
	tok := strings.TrimSpace(strings.TrimPrefix(cfg.Token, "Bot "))
	if tok == "" {
		return nil, errors.New("discord: no bot token: set token_env to the variable holding your bot's token (Developer Portal, Bot, Reset Token)")
	}
	s, err := discordgo.New("Bot " + tok)
	if err != nil {
		return nil, fmt.Errorf("discord: %w", err)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	if cfg.APIURL != "" {
		base, err := url.Parse(strings.TrimRight(cfg.APIURL, "/"))
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return nil, fmt.Errorf("discord: api_url %q is not an http(s) address: fix it or leave it out for Discord itself", cfg.APIURL)
		}
		// discordgo builds every REST URL from package-level variables
		// (discordgo.EndpointDiscord and the Endpoint* built from it):
		// changing them would point every session of the process (and
		// every test running alongside) at one server. The Session's own
		// http.Client is per session, so its transport moves this
		// session's requests for discord.com to the configured server;
		// the gateway's address then comes from that server's answer to
		// GET /gateway, and attachments' URLs from its messages.
		client.Transport = &rehost{to: base, next: http.DefaultTransport}
	}
	s.Client = client
	// The bridge reconnects (with its backoff and its log); Open on the
	// same Session then RESUMEs the gateway session where it stopped.
	s.ShouldReconnectOnError = false
	s.ShouldReconnectVoiceOnSessionError = false
	s.StateEnabled = false // the bridge keeps what it needs
	// Events are handled one after the other, in the gateway's order.
	s.SyncEvents = true
	s.Identify.Intents = discordgo.IntentsGuildMessages | discordgo.IntentsDirectMessages | discordgo.IntentMessageContent
	s.LogLevel = discordgo.LogError
	return &Platform{cfg: cfg, s: s, http: client}, nil
}

// rehost sends requests for https://discord.com to another server.
type rehost struct {
	to   *url.URL
	next http.RoundTripper
}

func (r *rehost) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != "discord.com" {
		return r.next.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host, out.Host = r.to.Scheme, r.to.Host, ""
	out.URL.Path = strings.TrimRight(r.to.Path, "/") + req.URL.Path
	return r.next.RoundTrip(out)
}

// Name implements bridge.Platform.
func (p *Platform) Name() string { return "discord" }

// Limits: 2000 characters a message; Discord allows about five edits of
// one channel's messages in five seconds.
func (p *Platform) Limits() bridge.Limits {
	return bridge.Limits{MaxText: 2000, EditEvery: 1200 * time.Millisecond}
}

// Receive opens the gateway (IDENTIFY the first time, RESUME after a
// lost connection) and delivers its events until ctx ends or the
// connection drops.
func (p *Platform) Receive(ctx context.Context, handle func(context.Context, bridge.Update)) error {
	lost := make(chan struct{}, 1)
	remove := []func(){
		p.s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
			if r.User != nil {
				p.mu.Lock()
				p.bot = r.User.ID
				p.mu.Unlock()
			}
		}),
		p.s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) {
			if up, ok := p.message(m.Message); ok {
				handle(ctx, up)
			}
		}),
		p.s.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) {
			if up, ok := press(i.Interaction); ok {
				handle(ctx, up)
			}
		}),
		p.s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) {
			select {
			case lost <- struct{}{}:
			default:
			}
		}),
	}
	defer func() {
		for _, r := range remove {
			r()
		}
	}()
	if err := p.s.Open(); err != nil {
		return fmt.Errorf("connect to the Discord gateway: %w", err)
	}
	select {
	case <-ctx.Done():
		_ = p.s.Close()
		return nil
	case <-lost:
		_ = p.s.Close() // already closed: makes sure
		return errors.New("the Discord gateway connection dropped")
	}
}

// message maps a MESSAGE_CREATE to the bridge's update; the bot's own
// messages and other bots' are not prompts.
func (p *Platform) message(m *discordgo.Message) (bridge.Update, bool) {
	if m == nil || m.Author == nil || m.Author.Bot {
		return bridge.Update{}, false
	}
	p.mu.Lock()
	own := m.Author.ID == p.bot
	p.mu.Unlock()
	if own {
		return bridge.Update{}, false
	}
	up := bridge.Update{ID: "m" + m.ID, Chat: bridge.Chat{ID: m.ChannelID}, User: m.Author.ID, UserName: m.Author.Username,
		Text: m.Content}
	for _, a := range m.Attachments {
		if a == nil || a.URL == "" {
			continue
		}
		up.Files = append(up.Files, bridge.File{Name: a.Filename, MediaType: a.ContentType, Size: int64(a.Size), Fetch: p.fetcher(a.URL)})
	}
	return up, true
}

// press maps a button's INTERACTION_CREATE to the bridge's update.
func press(i *discordgo.Interaction) (bridge.Update, bool) {
	if i == nil || i.Type != discordgo.InteractionMessageComponent || i.Message == nil {
		return bridge.Update{}, false
	}
	u := i.User
	if i.Member != nil && i.Member.User != nil {
		u = i.Member.User
	}
	if u == nil {
		return bridge.Update{}, false
	}
	return bridge.Update{ID: "i" + i.ID, Chat: bridge.Chat{ID: i.ChannelID}, User: u.ID, UserName: u.Username,
		Press: &bridge.Press{ID: i.ID + ":" + i.Token, Data: i.MessageComponentData().CustomID, MessageID: i.Message.ID}}, true
}

// fetcher downloads an attachment from the URL its message gave.
func (p *Platform) fetcher(u string) func(context.Context, int64) ([]byte, error) {
	return func(ctx context.Context, limit int64) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := p.http.Do(req)
		if err != nil {
			return nil, fmt.Errorf("download failed: %w", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("download failed: %s", resp.Status)
		}
		return io.ReadAll(io.LimitReader(resp.Body, limit))
	}
}

// Send implements bridge.Platform.
func (p *Platform) Send(ctx context.Context, c bridge.Chat, text string) (string, error) {
	return p.send(ctx, c, &discordgo.MessageSend{Content: text, AllowedMentions: noMentions()})
}

// SendButtons implements bridge.Platform: one action row of buttons.
func (p *Platform) SendButtons(ctx context.Context, c bridge.Chat, text string, buttons []bridge.Button) (string, error) {
	row := discordgo.ActionsRow{}
	for _, bt := range buttons {
		style := discordgo.PrimaryButton
		switch {
		case strings.HasPrefix(bt.Label, "Deny"):
			style = discordgo.DangerButton
		case strings.Contains(bt.Label, "session"):
			style = discordgo.SecondaryButton
		}
		row.Components = append(row.Components, discordgo.Button{Label: bt.Label, Style: style, CustomID: bt.Data})
	}
	return p.send(ctx, c, &discordgo.MessageSend{Content: text, Components: []discordgo.MessageComponent{row}, AllowedMentions: noMentions()})
}

// noMentions keeps a model's "@everyone" from pinging a server.
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

func (p *Platform) send(ctx context.Context, c bridge.Chat, m *discordgo.MessageSend) (string, error) {
	msg, err := p.s.ChannelMessageSendComplex(c.ID, m, discordgo.WithContext(ctx))
	if err != nil {
		return "", err
	}
	return msg.ID, nil
}

// Edit implements bridge.Platform: the text replaced, the buttons gone.
func (p *Platform) Edit(ctx context.Context, c bridge.Chat, messageID, text string) error {
	_, err := p.s.ChannelMessageEditComplex(&discordgo.MessageEdit{Channel: c.ID, ID: messageID, Content: &text,
		Components: &[]discordgo.MessageComponent{}, AllowedMentions: noMentions()}, discordgo.WithContext(ctx))
	return err
}

// SendFile implements bridge.Platform.
func (p *Platform) SendFile(ctx context.Context, c bridge.Chat, name string, data []byte, caption string) error {
	_, err := p.send(ctx, c, &discordgo.MessageSend{Content: caption, AllowedMentions: noMentions(),
		Files: []*discordgo.File{{Name: name, ContentType: "text/plain; charset=utf-8", Reader: strings.NewReader(string(data))}}})
	return err
}

// AnswerPress implements bridge.Platform with the interaction's
// response: a silent acknowledgement (the message stays as it is until
// the bridge edits it), or a notice only the presser sees.
func (p *Platform) AnswerPress(ctx context.Context, pr bridge.Press, notice string) error {
	id, token, ok := strings.Cut(pr.ID, ":")
	if !ok {
		return fmt.Errorf("discord: press id %q is not an interaction's", pr.ID)
	}
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if notice != "" {
		resp = &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: notice, Flags: discordgo.MessageFlagsEphemeral}}
	}
	return p.s.InteractionRespond(&discordgo.Interaction{ID: id, Token: token}, resp, discordgo.WithContext(ctx))
}
