package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/tandem-agent/tandem/internal/bridge"
)

// callback is the outer event of the Events API (type event_callback),
// decoded here rather than by slackevents because its MessageEvent drops
// the files a message carries.
type callback struct {
	Type    string       `json:"type"`
	EventID string       `json:"event_id"`
	Event   messageEvent `json:"event"`
}

type messageEvent struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	User        string `json:"user"`
	BotID       string `json:"bot_id"`
	Text        string `json:"text"`
	TS          string `json:"ts"`
	ThreadTS    string `json:"thread_ts"`
	Channel     string `json:"channel"`
	ChannelType string `json:"channel_type"`
	Files       []struct {
		Name               string `json:"name"`
		Mimetype           string `json:"mimetype"`
		Size               int64  `json:"size"`
		URLPrivateDownload string `json:"url_private_download"`
	} `json:"files"`
}

// heard are the message subtypes that are a person writing (edits,
// deletions, joins and bot messages are not prompts).
var heard = map[string]bool{"": true, "file_share": true, "thread_broadcast": true}

// eventUpdate maps an event_callback payload to the bridge's update; ok
// is false for anything that is not a person's message the bridge hears.
func (p *Platform) eventUpdate(payload []byte) (bridge.Update, bool) {
	var cb callback
	if err := json.Unmarshal(payload, &cb); err != nil || cb.Type != "event_callback" || cb.EventID == "" {
		return bridge.Update{}, false
	}
	e := cb.Event
	bot := p.bot()
	// app_mention duplicates the message event of the same message: only
	// message events are taken.
	if e.Type != "message" || !heard[e.Subtype] || e.BotID != "" || e.User == "" || e.User == bot || e.Channel == "" {
		return bridge.Update{}, false
	}
	chat := bridge.Chat{ID: e.Channel, Thread: e.ThreadTS}
	text := e.Text
	mention := "<@" + bot + ">"
	if chat.Thread == "" && e.ChannelType != "im" {
		// A channel is heard only where it mentions the bot, and the
		// conversation goes on in a thread under that message.
		if bot == "" || !strings.Contains(text, mention) {
			return bridge.Update{}, false
		}
		chat.Thread = e.TS
	}
	if bot != "" {
		text = strings.ReplaceAll(text, mention, "")
	}
	up := bridge.Update{ID: cb.EventID, Chat: chat, User: e.User, UserName: e.User, Text: unescape(strings.TrimSpace(text))}
	for _, f := range e.Files {
		if f.URLPrivateDownload == "" {
			continue
		}
		up.Files = append(up.Files, bridge.File{Name: f.Name, MediaType: f.Mimetype, Size: f.Size, Fetch: p.fetcher(f.URLPrivateDownload)})
	}
	return up, true
}

// unescape undoes Slack's escaping of message text (&amp; &lt; &gt;).
func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// interactionUpdate maps a block_actions payload (a button press) to the
// bridge's update.
func (p *Platform) interactionUpdate(payload []byte) (bridge.Update, bool) {
	var cb slack.InteractionCallback
	if err := json.Unmarshal(payload, &cb); err != nil || cb.Type != slack.InteractionTypeBlockActions || len(cb.ActionCallback.BlockActions) == 0 {
		return bridge.Update{}, false
	}
	a := cb.ActionCallback.BlockActions[0]
	ch := firstNonEmpty(cb.Container.ChannelID, cb.Channel.ID)
	if ch == "" || cb.User.ID == "" {
		return bridge.Update{}, false
	}
	thread := firstNonEmpty(cb.Container.ThreadTs, cb.Message.ThreadTimestamp)
	msgTS := firstNonEmpty(cb.Container.MessageTs, cb.Message.Timestamp)
	return bridge.Update{
		// A press has no event id; its action_ts is unique to the click.
		ID:   "action:" + cb.User.ID + ":" + firstNonEmpty(a.ActionTs, cb.ActionTs, cb.TriggerID),
		Chat: bridge.Chat{ID: ch, Thread: thread}, User: cb.User.ID, UserName: firstNonEmpty(cb.User.Name, cb.User.ID),
		Press: &bridge.Press{ID: pressID(ch, cb.User.ID, thread), Data: a.Value, MessageID: msgTS},
	}, true
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// fetcher downloads a file the user sent. The library sends the bot token
// only to Slack's own hosts (or the configured API URL).
func (p *Platform) fetcher(u string) func(context.Context, int64) ([]byte, error) {
	return func(ctx context.Context, limit int64) ([]byte, error) {
		w := &capped{limit: limit}
		if err := p.api.GetFileContext(ctx, u, w); err != nil && !errors.Is(err, errFull) {
			return nil, err
		}
		return w.buf, nil
	}
}

var errFull = errors.New("enough read")

// capped keeps the first limit bytes written to it.
type capped struct {
	buf   []byte
	limit int64
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.limit - int64(len(c.buf))
	if int64(len(p)) > room {
		c.buf = append(c.buf, p[:room]...)
		return int(room), errFull
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// maxBody is the largest request the Events API endpoint reads.
const maxBody = 1 << 20

// serveEvents serves the Events API endpoint until ctx ends: requests
// signed with the signing secret only (others get 401), the
// url_verification challenge answered, events, button presses and slash
// commands acknowledged at once (Slack retries what is not answered within 3
// seconds) and handled in order by this goroutine.
func (p *Platform) serveEvents(ctx context.Context, handle func(context.Context, bridge.Update)) error {
	ln, err := net.Listen("tcp", p.cfg.Events.Listen)
	if err != nil {
		return fmt.Errorf("listen for Slack events on %s: %w", p.cfg.Events.Listen, err)
	}
	queue := make(chan bridge.Update, 64)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: p.eventsHandler(queue)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-p.addr:
	default:
	}
	p.addr <- ln.Addr().String()
	for {
		select {
		case <-ctx.Done():
			_ = srv.Close()
			return nil
		case err := <-errc:
			return fmt.Errorf("the Slack events endpoint stopped: %w", err)
		case up := <-queue:
			handle(ctx, up)
		}
	}
}

func (p *Platform) eventsHandler(queue chan<- bridge.Update) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil || len(body) > maxBody {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		sv, err := slack.NewSecretsVerifier(r.Header, p.cfg.Events.SigningSecret)
		if err == nil {
			_, _ = sv.Write(body)
			err = sv.Ensure()
		}
		if err != nil {
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		var up bridge.Update
		var ok bool
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			// Interactivity (payload=<JSON>) or a slash command (its
			// fields).
			form, err := url.ParseQuery(string(body))
			if err != nil {
				http.Error(w, "bad form", http.StatusBadRequest)
				return
			}
			if form.Has("command") {
				p.slashRequest(w, r, body, queue)
				return
			}
			up, ok = p.interactionUpdate([]byte(form.Get("payload")))
		} else {
			var outer struct {
				Type      string `json:"type"`
				Challenge string `json:"challenge"`
			}
			if err := json.Unmarshal(body, &outer); err != nil {
				http.Error(w, "bad JSON", http.StatusBadRequest)
				return
			}
			if outer.Type == "url_verification" {
				w.Header().Set("Content-Type", "text/plain")
				_, _ = io.WriteString(w, outer.Challenge)
				return
			}
			up, ok = p.eventUpdate(body)
		}
		if ok {
			select {
			case queue <- up:
			default:
				// Busy: Slack retries later, and the stored id keeps a
				// retry from running twice.
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
		}
		w.WriteHeader(http.StatusOK)
	})
}

// slashRequest answers a slash command posted to the endpoint (its
// signature checked): the acknowledgement is the response's JSON body,
// and a command Slack cannot be asked to retry is answered even when
// busy (an ephemeral "try again").
func (p *Platform) slashRequest(w http.ResponseWriter, r *http.Request, body []byte, queue chan<- bridge.Update) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	cmd, err := slack.SlashCommandParse(r)
	if err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	up, ok, ack := p.slashUpdate(cmd)
	if ok {
		select {
		case queue <- up:
		default:
			ack = &slack.Msg{ResponseType: slack.ResponseTypeEphemeral, Text: "tandem is busy: try again in a moment."}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(ack)
}
