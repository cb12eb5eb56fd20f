// Package feishu is the chat bridge's Feishu/Lark platform over
// github.com/larksuite/oapi-sdk-go/v3: events arrive over the SDK's long
// connection (its ws client: an HTTP call for the endpoint, then protobuf
// frames on a WebSocket) or, with a webhook, as HTTP callbacks the SDK's
// httpserverext handler decrypts and checks; either way through its event
// dispatcher, im.message.receive_v1 becomes a prompt and
// card.action.trigger a button press; answers are interactive cards sent
// and updated (PATCH) through the IM API, files uploaded and sent as file
// messages.
//
// Every message the bot sends is a card, because a card can be updated
// as often as the rate limit allows while a text message can be edited
// only a few times; permission questions are cards with buttons.
package feishu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	lark "github.com/larksuite/oapi-sdk-go/v3"
	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"
	larkevent "github.com/larksuite/oapi-sdk-go/v3/event"
	"github.com/larksuite/oapi-sdk-go/v3/event/dispatcher"
	"github.com/larksuite/oapi-sdk-go/v3/event/dispatcher/callback"
	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"

	"github.com/tandem-agent/tandem/internal/bridge"
)

// Config is one Feishu/Lark app.
type Config struct {
	AppID, AppSecret string
	// BaseURL is the open platform's address ("": https://open.feishu.cn;
	// https://open.larksuite.com for Lark). Both the IM API and the long
	// connection's endpoint are asked there.
	BaseURL string
	// Webhook, when set, receives events and card callbacks by HTTP
	// callback instead of the long connection.
	Webhook *Webhook
}

// Webhook is the HTTP endpoint Feishu posts events and card callbacks
// to (the app's Events and Callbacks request URLs both point at it).
type Webhook struct {
	// Listen is the local address it is served on ("127.0.0.1:9000"; a
	// reverse proxy with TLS in front of it).
	Listen string
	// VerificationToken is the app's Verification Token (Events and
	// Callbacks, Encryption Strategy): the URL verification challenge and
	// every event must carry it.
	VerificationToken string
	// EncryptKey is the app's Encrypt Key ("" when none is set): events
	// come AES-256-CBC encrypted and every request signed with it.
	EncryptKey string
}

// Platform is a Feishu/Lark app as a bridge.Platform.
type Platform struct {
	cfg  Config
	base string
	api  *lark.Client
	// events routes the SDK's decoded events to onMessage and
	// onCardAction, for the long connection and the webhook alike.
	events *dispatcher.EventDispatcher
	// ws is the long connection's client (longconn.go), used by
	// Receive only.
	ws *wsClient
	// addr is the webhook's address once it listens (for tests that
	// listen on port 0).
	addr chan string

	mu      sync.Mutex
	sink    func(context.Context, bridge.Update) // the current Receive's handle
	sinkCtx context.Context
	// toasts are the notices for presses being handled, by press id.
	toasts map[string]*string
	// logf is the bridge's log (SetLog), for the SDK's lines.
	logf func(format string, args ...any)
}

// New checks cfg and returns the platform; Receive connects.
func New(cfg Config) (*Platform, error) {
	if cfg.AppID == "" || cfg.AppSecret == "" {
		return nil, errors.New("feishu: app_id and app_secret (or app_secret_env) are needed: find them in the developer console under Credentials")
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = lark.FeishuBaseUrl
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("feishu: base_url %q is not an http(s) address", cfg.BaseURL)
	}
	if w := cfg.Webhook; w != nil && (w.Listen == "" || w.VerificationToken == "") {
		return nil, errors.New("feishu webhook: listen and verification_token are both needed (or leave webhook out to use the long connection)")
	}
	p := &Platform{cfg: cfg, base: base, addr: make(chan string, 1), toasts: map[string]*string{}}
	p.api = lark.NewClient(cfg.AppID, cfg.AppSecret, lark.WithOpenBaseUrl(base), lark.WithLogLevel(quiet), lark.WithLogger(sdkLog{p}),
		lark.WithReqTimeout(30*time.Second))
	// The long connection is authenticated by the app's credentials when
	// it is made and its events come unencrypted: no token or key. A
	// webhook's requests are checked with both.
	token, key := "", ""
	if w := cfg.Webhook; w != nil {
		token, key = w.VerificationToken, w.EncryptKey
	}
	p.events = dispatcher.NewEventDispatcher(token, key).
		OnP2MessageReceiveV1(p.onMessage).
		OnP2CardActionTrigger(p.onCardAction)
	p.events.InitConfig(larkevent.WithLogLevel(quiet), larkevent.WithLogger(sdkLog{p}))
	return p, nil
}

// quiet is the SDK's log level: its errors only, into the bridge's log (log.go).
const quiet = larkcore.LogLevelError

// Name implements bridge.Platform.
func (p *Platform) Name() string { return "feishu" }

// Limits: a card's text stays well inside its 30 KB; a message may be
// updated about five times a second.
func (p *Platform) Limits() bridge.Limits {
	return bridge.Limits{MaxText: 4000, EditEvery: time.Second}
}

// Receive routes the events of the long connection (or the webhook) to
// handle until ctx ends or the connection fails.
func (p *Platform) Receive(ctx context.Context, handle func(context.Context, bridge.Update)) error {
	p.mu.Lock()
	p.sink, p.sinkCtx = handle, ctx
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.sink, p.sinkCtx = nil, nil
		p.mu.Unlock()
	}()
	if p.cfg.Webhook != nil {
		return p.serveWebhook(ctx)
	}
	return p.longConnection(ctx)
}

var errNotReceiving = errors.New("feishu: the bridge is not receiving now")

func (p *Platform) current() (func(context.Context, bridge.Update), context.Context, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sink == nil {
		return nil, nil, errNotReceiving
	}
	return p.sink, p.sinkCtx, nil
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// onMessage maps im.message.receive_v1 to the bridge's update.
func (p *Platform) onMessage(_ context.Context, ev *larkim.P2MessageReceiveV1) error {
	handle, ctx, err := p.current()
	if err != nil {
		return err
	}
	if err := p.authentic(ev.EventV2Base); err != nil {
		return err
	}
	if ev.Event == nil || ev.Event.Message == nil || ev.Event.Sender == nil || ev.Event.Sender.SenderId == nil || ev.EventV2Base == nil || ev.EventV2Base.Header == nil {
		return nil
	}
	if str(ev.Event.Sender.SenderType) != "user" {
		return nil // the bot's own and other apps' messages
	}
	m := ev.Event.Message
	up := bridge.Update{ID: "e" + ev.EventV2Base.Header.EventID, Chat: bridge.Chat{ID: str(m.ChatId)},
		User: str(ev.Event.Sender.SenderId.OpenId), UserName: str(ev.Event.Sender.SenderId.UserId)}
	var content struct {
		Text     string `json:"text"`
		ImageKey string `json:"image_key"`
		FileKey  string `json:"file_key"`
		FileName string `json:"file_name"`
	}
	_ = json.Unmarshal([]byte(str(m.Content)), &content)
	mid := str(m.MessageId)
	switch str(m.MessageType) {
	case "text":
		up.Text = stripMentions(content.Text)
	case "image":
		up.Files = append(up.Files, bridge.File{Name: "image", Fetch: p.fetcher(mid, content.ImageKey, "image")})
	case "file":
		up.Files = append(up.Files, bridge.File{Name: content.FileName, Fetch: p.fetcher(mid, content.FileKey, "file")})
	default:
		return nil // other kinds (stickers, posts, ...) are not prompts
	}
	handle(ctx, up)
	return nil
}

// stripMentions removes the @_user_N placeholders a group message has
// for the bot's mention.
func stripMentions(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		if !strings.HasPrefix(w, "@_user_") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// onCardAction maps a button's card.action.trigger to a press; the
// notice AnswerPress gives is the callback's toast.
func (p *Platform) onCardAction(_ context.Context, ev *callback.CardActionTriggerEvent) (*callback.CardActionTriggerResponse, error) {
	handle, ctx, err := p.current()
	if err != nil {
		return nil, err
	}
	if err := p.authentic(ev.EventV2Base); err != nil {
		return nil, err
	}
	if ev.Event == nil || ev.Event.Operator == nil || ev.Event.Action == nil || ev.Event.Context == nil || ev.EventV2Base == nil || ev.EventV2Base.Header == nil {
		return nil, nil
	}
	data, _ := ev.Event.Action.Value["tandem"].(string)
	id := ev.EventV2Base.Header.EventID
	toast := new(string)
	p.mu.Lock()
	p.toasts[id] = toast
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.toasts, id)
		p.mu.Unlock()
	}()
	handle(ctx, bridge.Update{ID: "e" + id, Chat: bridge.Chat{ID: ev.Event.Context.OpenChatID}, User: ev.Event.Operator.OpenID,
		Press: &bridge.Press{ID: id, Data: data, MessageID: ev.Event.Context.OpenMessageID}})
	p.mu.Lock()
	text := *toast
	p.mu.Unlock()
	if text == "" {
		return &callback.CardActionTriggerResponse{}, nil
	}
	return &callback.CardActionTriggerResponse{Toast: &callback.Toast{Type: "info", Content: text}}, nil
}

// fetcher downloads a resource of a message the user sent.
func (p *Platform) fetcher(messageID, key, kind string) func(context.Context, int64) ([]byte, error) {
	return func(ctx context.Context, limit int64) ([]byte, error) {
		resp, err := p.api.Im.MessageResource.Get(ctx, larkim.NewGetMessageResourceReqBuilder().MessageId(messageID).FileKey(key).Type(kind).Build())
		if err != nil {
			return nil, fmt.Errorf("download failed: %w", err)
		}
		if !resp.Success() {
			return nil, fmt.Errorf("download failed: %s (code %d)", resp.Msg, resp.Code)
		}
		return io.ReadAll(io.LimitReader(resp.File, limit))
	}
}

// card is an interactive card of text with, maybe, one row of buttons;
// update_multi lets the bot update it later.
func card(text string, buttons []bridge.Button) string {
	elems := []any{map[string]any{"tag": "div", "text": map[string]any{"tag": "plain_text", "content": text}}}
	if len(buttons) > 0 {
		var actions []any
		for _, b := range buttons {
			kind := "primary"
			if strings.HasPrefix(b.Label, "Deny") {
				kind = "danger"
			} else if strings.Contains(b.Label, "session") {
				kind = "default"
			}
			actions = append(actions, map[string]any{"tag": "button", "text": map[string]any{"tag": "plain_text", "content": b.Label},
				"type": kind, "value": map[string]any{"tandem": b.Data}})
		}
		elems = append(elems, map[string]any{"tag": "action", "actions": actions})
	}
	b, _ := json.Marshal(map[string]any{"config": map[string]any{"wide_screen_mode": true, "update_multi": true}, "elements": elems})
	return string(b)
}

func failed(what string, code int, msg string) error {
	return fmt.Errorf("feishu %s: %s (code %d)", what, msg, code)
}

func (p *Platform) create(ctx context.Context, c bridge.Chat, kind, content string) (string, error) {
	resp, err := p.api.Im.Message.Create(ctx, larkim.NewCreateMessageReqBuilder().ReceiveIdType("chat_id").
		Body(larkim.NewCreateMessageReqBodyBuilder().ReceiveId(c.ID).MsgType(kind).Content(content).Build()).Build())
	if err != nil {
		return "", err
	}
	if !resp.Success() {
		return "", failed("send", resp.Code, resp.Msg)
	}
	return str(resp.Data.MessageId), nil
}

// Send implements bridge.Platform.
func (p *Platform) Send(ctx context.Context, c bridge.Chat, text string) (string, error) {
	return p.create(ctx, c, "interactive", card(text, nil))
}

// SendButtons implements bridge.Platform: a card with a row of buttons.
func (p *Platform) SendButtons(ctx context.Context, c bridge.Chat, text string, buttons []bridge.Button) (string, error) {
	return p.create(ctx, c, "interactive", card(text, buttons))
}

// Edit implements bridge.Platform: the card updated, its buttons gone.
func (p *Platform) Edit(ctx context.Context, _ bridge.Chat, messageID, text string) error {
	resp, err := p.api.Im.Message.Patch(ctx, larkim.NewPatchMessageReqBuilder().MessageId(messageID).
		Body(larkim.NewPatchMessageReqBodyBuilder().Content(card(text, nil)).Build()).Build())
	if err != nil {
		return err
	}
	if !resp.Success() {
		return failed("update", resp.Code, resp.Msg)
	}
	return nil
}

// SendFile implements bridge.Platform: the caption, then the uploaded
// file as a file message.
func (p *Platform) SendFile(ctx context.Context, c bridge.Chat, name string, data []byte, caption string) error {
	up, err := p.api.Im.File.Create(ctx, larkim.NewCreateFileReqBuilder().Body(larkim.NewCreateFileReqBodyBuilder().
		FileType("stream").FileName(name).File(bytes.NewReader(data)).Build()).Build())
	if err != nil {
		return err
	}
	if !up.Success() {
		return failed("upload", up.Code, up.Msg)
	}
	if caption != "" {
		if _, err := p.Send(ctx, c, caption); err != nil {
			return err
		}
	}
	content, _ := json.Marshal(map[string]string{"file_key": str(up.Data.FileKey)})
	_, err = p.create(ctx, c, "file", string(content))
	return err
}

// AnswerPress implements bridge.Platform: the notice becomes the toast
// of the card callback's response (Feishu takes the answer in the
// callback itself).
func (p *Platform) AnswerPress(_ context.Context, pr bridge.Press, notice string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.toasts[pr.ID]
	if !ok {
		return fmt.Errorf("feishu: the press %s was already answered", pr.ID)
	}
	*t = notice
	return nil
}
