// Package telegram is the chat bridge's Telegram platform over
// github.com/go-telegram/bot: updates by long polling (getUpdates) or by
// webhook (setWebhook and an HTTP endpoint checking Telegram's secret
// header), answers by sendMessage/editMessageText, files by sendDocument,
// permission buttons as inline keyboards answered with
// answerCallbackQuery.
package telegram

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/tandem-agent/tandem/internal/bridge"
)

// Config is one Telegram bot.
type Config struct {
	Token string
	// APIURL is the Bot API's address ("": https://api.telegram.org).
	APIURL string
	// Webhook, when set, receives updates by webhook instead of polling.
	Webhook *Webhook
	// PollTimeout is the long poll's length (0: 50 s).
	PollTimeout time.Duration
}

// Webhook is where Telegram POSTs updates.
type Webhook struct {
	// Listen is the local address the bridge serves the webhook on
	// ("127.0.0.1:8443"; a reverse proxy with TLS in front of it).
	Listen string
	// URL is the public HTTPS address Telegram posts to.
	URL string
	// Secret is the X-Telegram-Bot-Api-Secret-Token every POST must
	// carry (1-256 characters of A-Z, a-z, 0-9, _ and -).
	Secret string
}

// Platform is a Telegram bot as a bridge.Platform.
type Platform struct {
	cfg Config

	mu  sync.Mutex
	bot *tg.Bot // the connected bot (nil between connections)
	// Addr is the webhook's listening address once it listens (for
	// tests that listen on port 0).
	addr chan string
}

// New checks cfg and returns the platform; Receive connects.
func New(cfg Config) (*Platform, error) {
	if cfg.Token == "" {
		return nil, errors.New("telegram: no bot token: set token (from @BotFather) in the bridge's config")
	}
	if w := cfg.Webhook; w != nil {
		if w.Listen == "" || w.URL == "" || w.Secret == "" {
			return nil, errors.New("telegram webhook: listen, url and secret are all needed (or leave webhook out to poll)")
		}
	}
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = 50 * time.Second
	}
	return &Platform{cfg: cfg, addr: make(chan string, 1)}, nil
}

// Name implements bridge.Platform.
func (p *Platform) Name() string { return "telegram" }

// Limits: 4096 characters a message; about one message a second per chat.
func (p *Platform) Limits() bridge.Limits {
	return bridge.Limits{MaxText: 4096, EditEvery: 1200 * time.Millisecond}
}

// WebhookAddr returns the address the webhook listens on, once it does.
func (p *Platform) WebhookAddr(ctx context.Context) (string, error) {
	select {
	case a := <-p.addr:
		p.addr <- a
		return a, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Receive connects (getMe), then polls or serves the webhook until ctx
// ends or the connection fails.
func (p *Platform) Receive(ctx context.Context, handle func(context.Context, bridge.Update)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var failMu sync.Mutex
	var failure error
	opts := []tg.Option{
		tg.WithHTTPClient(p.cfg.PollTimeout, &http.Client{Timeout: p.cfg.PollTimeout + 10*time.Second}),
		tg.WithNotAsyncHandlers(), tg.WithWorkers(1),
		tg.WithDefaultHandler(func(ctx context.Context, b *tg.Bot, u *models.Update) {
			if up, ok := p.convert(b, u); ok {
				handle(ctx, up)
			}
		}),
		tg.WithErrorsHandler(func(err error) {
			// A failed poll ends this connection; the bridge reconnects
			// with its backoff.
			if strings.Contains(err.Error(), "get updates") {
				failMu.Lock()
				failure = err
				failMu.Unlock()
				cancel()
			}
		}),
	}
	if p.cfg.APIURL != "" {
		opts = append(opts, tg.WithServerURL(strings.TrimRight(p.cfg.APIURL, "/")))
	}
	if w := p.cfg.Webhook; w != nil {
		opts = append(opts, tg.WithWebhookSecretToken(w.Secret))
	}
	b, err := tg.New(p.cfg.Token, opts...)
	if err != nil {
		return fmt.Errorf("connect to Telegram: %w", err)
	}
	p.mu.Lock()
	p.bot = b
	p.mu.Unlock()
	if p.cfg.Webhook != nil {
		return p.serveWebhook(ctx, b)
	}
	if _, err := b.DeleteWebhook(ctx, &tg.DeleteWebhookParams{}); err != nil {
		return fmt.Errorf("delete the webhook before polling: %w", err)
	}
	b.Start(ctx)
	failMu.Lock()
	defer failMu.Unlock()
	return failure
}

// maxBody is the largest update the webhook reads (Telegram's are a few
// KiB; a file comes as an id to download, not in the update).
const maxBody = 1 << 20

// serveWebhook registers the webhook and serves it until ctx ends.
func (p *Platform) serveWebhook(ctx context.Context, b *tg.Bot) error {
	w := p.cfg.Webhook
	ln, err := net.Listen("tcp", w.Listen)
	if err != nil {
		return fmt.Errorf("listen for the Telegram webhook on %s: %w", w.Listen, err)
	}
	lib := b.WebhookHandler()
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		// The library drops a request with a wrong secret but answers
		// 200; refuse it plainly so a misconfiguration shows. The
		// secret is compared in constant time, and the body is read
		// here within maxBody: the library reads whatever it is sent.
		if r.Method != http.MethodPost || subtle.ConstantTimeCompare([]byte(r.Header.Get("X-Telegram-Bot-Api-Secret-Token")), []byte(w.Secret)) != 1 {
			http.Error(rw, "forbidden", http.StatusForbidden)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			http.Error(rw, "bad request", http.StatusBadRequest)
			return
		}
		if len(body) > maxBody {
			http.Error(rw, "too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		lib(rw, r)
	})}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-p.addr:
	default:
	}
	p.addr <- ln.Addr().String()
	if _, err := b.SetWebhook(ctx, &tg.SetWebhookParams{URL: w.URL, SecretToken: w.Secret,
		AllowedUpdates: []string{"message", "callback_query"}}); err != nil {
		_ = srv.Close()
		return fmt.Errorf("set the Telegram webhook to %s: %w", w.URL, err)
	}
	done := make(chan struct{})
	go func() { b.StartWebhook(ctx); close(done) }()
	select {
	case <-ctx.Done():
		_ = srv.Close()
		<-done
		return nil
	case err := <-errc:
		<-done
		return fmt.Errorf("the Telegram webhook server stopped: %w", err)
	}
}

func (p *Platform) current() (*tg.Bot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bot == nil {
		return nil, errors.New("telegram: not connected yet")
	}
	return p.bot, nil
}

// convert maps a Telegram update to the bridge's.
func (p *Platform) convert(b *tg.Bot, u *models.Update) (bridge.Update, bool) {
	id := strconv.FormatInt(u.ID, 10)
	if cq := u.CallbackQuery; cq != nil {
		m := cq.Message.Message
		if m == nil {
			return bridge.Update{}, false
		}
		return bridge.Update{ID: id, Chat: chatOf(m), User: strconv.FormatInt(cq.From.ID, 10), UserName: cq.From.Username,
			Press: &bridge.Press{ID: cq.ID, Data: cq.Data, MessageID: strconv.Itoa(m.ID)}}, true
	}
	m := u.Message
	if m == nil || m.From == nil {
		return bridge.Update{}, false
	}
	up := bridge.Update{ID: id, Chat: chatOf(m), User: strconv.FormatInt(m.From.ID, 10), UserName: m.From.Username,
		Text: m.Text}
	if up.Text == "" {
		up.Text = m.Caption
	}
	if n := len(m.Photo); n > 0 {
		ph := m.Photo[n-1] // the largest size
		up.Files = append(up.Files, bridge.File{Name: "photo.jpg", MediaType: "image/jpeg", Size: int64(ph.FileSize), Fetch: p.fetcher(b, ph.FileID)})
	}
	if d := m.Document; d != nil {
		up.Files = append(up.Files, bridge.File{Name: d.FileName, MediaType: d.MimeType, Size: d.FileSize, Fetch: p.fetcher(b, d.FileID)})
	}
	return up, true
}

func chatOf(m *models.Message) bridge.Chat {
	c := bridge.Chat{ID: strconv.FormatInt(m.Chat.ID, 10)}
	if m.IsTopicMessage && m.MessageThreadID != 0 {
		c.Thread = strconv.Itoa(m.MessageThreadID)
	}
	return c
}

// fetcher downloads a file the user sent (getFile, then the file URL).
func (p *Platform) fetcher(b *tg.Bot, fileID string) func(context.Context, int64) ([]byte, error) {
	return func(ctx context.Context, limit int64) ([]byte, error) {
		f, err := b.GetFile(ctx, &tg.GetFileParams{FileID: fileID})
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.FileDownloadLink(f), nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, errors.New("download failed") // the URL holds the token: not in the error
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("download failed: %s", resp.Status)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, limit))
		if err != nil {
			return nil, errors.New("download failed")
		}
		return data, nil
	}
}

func ids(c bridge.Chat) (int64, int, error) {
	chat, err := strconv.ParseInt(c.ID, 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("telegram chat id %q is not a number", c.ID)
	}
	thread := 0
	if c.Thread != "" {
		thread, _ = strconv.Atoi(c.Thread)
	}
	return chat, thread, nil
}

// Send implements bridge.Platform.
func (p *Platform) Send(ctx context.Context, c bridge.Chat, text string) (string, error) {
	return p.send(ctx, c, text, nil)
}

// SendButtons implements bridge.Platform: an inline keyboard of one row.
func (p *Platform) SendButtons(ctx context.Context, c bridge.Chat, text string, buttons []bridge.Button) (string, error) {
	row := make([]models.InlineKeyboardButton, len(buttons))
	for i, bt := range buttons {
		row[i] = models.InlineKeyboardButton{Text: bt.Label, CallbackData: bt.Data}
	}
	return p.send(ctx, c, text, &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{row}})
}

func (p *Platform) send(ctx context.Context, c bridge.Chat, text string, markup models.ReplyMarkup) (string, error) {
	b, err := p.current()
	if err != nil {
		return "", err
	}
	chat, thread, err := ids(c)
	if err != nil {
		return "", err
	}
	m, err := b.SendMessage(ctx, &tg.SendMessageParams{ChatID: chat, MessageThreadID: thread, Text: text, ReplyMarkup: markup})
	if err != nil {
		return "", err
	}
	return strconv.Itoa(m.ID), nil
}

// Edit implements bridge.Platform (no markup: the buttons go).
func (p *Platform) Edit(ctx context.Context, c bridge.Chat, messageID, text string) error {
	b, err := p.current()
	if err != nil {
		return err
	}
	chat, _, err := ids(c)
	if err != nil {
		return err
	}
	id, err := strconv.Atoi(messageID)
	if err != nil {
		return fmt.Errorf("telegram message id %q is not a number", messageID)
	}
	_, err = b.EditMessageText(ctx, &tg.EditMessageTextParams{ChatID: chat, MessageID: id, Text: text})
	if err != nil && strings.Contains(err.Error(), "message is not modified") {
		return nil
	}
	return err
}

// SendFile implements bridge.Platform.
func (p *Platform) SendFile(ctx context.Context, c bridge.Chat, name string, data []byte, caption string) error {
	b, err := p.current()
	if err != nil {
		return err
	}
	chat, thread, err := ids(c)
	if err != nil {
		return err
	}
	_, err = b.SendDocument(ctx, &tg.SendDocumentParams{ChatID: chat, MessageThreadID: thread, Caption: caption,
		Document: &models.InputFileUpload{Filename: name, Data: bytes.NewReader(data)}})
	return err
}

// AnswerPress implements bridge.Platform.
func (p *Platform) AnswerPress(ctx context.Context, pr bridge.Press, notice string) error {
	b, err := p.current()
	if err != nil {
		return err
	}
	_, err = b.AnswerCallbackQuery(ctx, &tg.AnswerCallbackQueryParams{CallbackQueryID: pr.ID, Text: notice})
	return err
}
