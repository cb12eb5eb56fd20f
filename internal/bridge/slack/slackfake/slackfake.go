// Package slackfake is Slack on loopback for tests, in Slack's wire
// formats (https://api.slack.com/methods, https://api.slack.com/apis/socket-mode,
// https://api.slack.com/apis/events-api, and slack-go's own test
// fixtures): the Web API methods the bridge uses — auth.test,
// apps.connections.open, chat.postMessage, chat.update, chat.postEphemeral,
// files.getUploadURLExternal, the upload URL, files.completeUploadExternal
// and private file downloads — as form posts answered with {"ok": ...};
// the Socket Mode WebSocket (hello, events_api and interactive envelopes,
// acks by envelope_id, unacknowledged envelopes delivered again on the
// next connection, pings); and signed Events API posts.
// A test plays the users (Message, Press) and reads what the bot did
// (Messages, Files, Ephemerals).
package slackfake

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// BotUser is the bot's user id (auth.test).
const BotUser = "UBOT0001"

// User is a Slack user.
type User struct {
	ID, Name string
}

// Button is a Block Kit button of a bot message.
type Button struct {
	ActionID, Text, Value, Style string
}

// Message is a message the bot posted, as it stands now.
type Message struct {
	Channel, TS, ThreadTS, Text string
	Buttons                     []Button
	Edits                       int
}

// File is a file the bot uploaded and shared.
type File struct {
	Channel, ThreadTS, Name, Title, Comment string
	Contents                                []byte
}

// Ephemeral is a message only one user sees.
type Ephemeral struct {
	Channel, User, ThreadTS, Text string
}

// Envelope is something Slack sends the app: over Socket Mode, or posted
// to the Events API endpoint.
type Envelope struct {
	Type    string // "events_api" or "interactive"
	Payload json.RawMessage
}

type envelope struct {
	Envelope
	id    string
	retry int
}

type upload struct {
	name string
	data []byte
	done bool
}

// Server is the fake Slack.
type Server struct {
	URL      string // the server's root; APIURL is URL + "/api/"
	APIURL   string
	BotToken string
	AppToken string

	srv *http.Server

	mu          sync.Mutex
	changed     chan struct{} // closed and replaced on every change
	nextID      int
	messages    []*Message
	files       []File
	ephemerals  []Ephemeral
	calls       []string
	uploads     map[string]*upload
	userFiles   map[string][]byte // path -> contents
	pending     []*envelope       // envelopes not yet acknowledged
	acked       []*envelope       // acknowledged, oldest first
	connections int               // Socket Mode connections so far
	drop        chan struct{}     // closed to drop the current connection
	rateLimit   int               // chat.* calls left to answer 429
	controls    [][]byte          // messages for the current connection only (disconnect)
}

// Start serves the fake on 127.0.0.1 until Close.
func Start(botToken, appToken string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), BotToken: botToken, AppToken: appToken, changed: make(chan struct{}),
		uploads: map[string]*upload{}, userFiles: map[string][]byte{}, drop: make(chan struct{}), nextID: 100}
	s.APIURL = s.URL + "/api/"
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	s.dropLocked()
	s.mu.Unlock()
	_ = s.srv.Close()
}

func (s *Server) touch() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) id() int {
	s.nextID++
	return s.nextID
}

// ts is a message timestamp, Slack's message id ("1700000000.000101").
func (s *Server) ts() string { return fmt.Sprintf("1700000000.%06d", s.id()) }

// Wait blocks until cond holds (checked on every change) or the timeout.
func (s *Server) Wait(timeout time.Duration, cond func() bool) bool {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return cond()
		}
	}
}

// queue sends env over Socket Mode (now, or on the next connection).
func (s *Server) queue(env Envelope) Envelope {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, &envelope{Envelope: env, id: fmt.Sprintf("env-%d", s.id())})
	s.touch()
	return env
}

// Message sends a user's message in channel (channelType "im" for a DM,
// "channel" otherwise; thread "" for a top-level message) as an
// events_api envelope and returns it (for posting to the Events API).
func (s *Server) Message(from User, channel, channelType, thread, text string) Envelope {
	return s.queue(s.messageEnvelope(from, channel, channelType, thread, text, nil))
}

// MessageWithFile is Message with a file attached (subtype file_share).
func (s *Server) MessageWithFile(from User, channel, channelType, thread, text, name, mimeType string, data []byte) Envelope {
	s.mu.Lock()
	fid := fmt.Sprintf("F%d", s.id())
	path := "/files-pri/T0001-" + fid + "/download/" + name
	s.userFiles[path] = data
	s.mu.Unlock()
	f := map[string]any{"id": fid, "name": name, "title": name, "mimetype": mimeType, "filetype": "auto", "size": len(data),
		"url_private": s.URL + "/files-pri/T0001-" + fid + "/" + name, "url_private_download": s.URL + path}
	return s.queue(s.messageEnvelope(from, channel, channelType, thread, text, []any{f}))
}

func (s *Server) messageEnvelope(from User, channel, channelType, thread, text string, files []any) Envelope {
	s.mu.Lock()
	ts := s.ts()
	eventID := fmt.Sprintf("Ev%08d", s.id())
	s.mu.Unlock()
	ev := map[string]any{"type": "message", "channel": channel, "user": from.ID, "text": text, "ts": ts, "event_ts": ts,
		"channel_type": channelType, "client_msg_id": "c" + eventID}
	if thread != "" {
		ev["thread_ts"] = thread
	}
	if files != nil {
		ev["subtype"], ev["files"] = "file_share", files
	}
	payload, _ := json.Marshal(map[string]any{"token": "verification-token", "team_id": "T0001", "api_app_id": "A0001",
		"event": ev, "type": "event_callback", "event_id": eventID, "event_time": 1700000000,
		"authorizations": []any{map[string]any{"team_id": "T0001", "user_id": BotUser, "is_bot": true}}})
	return Envelope{Type: "events_api", Payload: payload}
}

// Press sends a user's press of the button with value on message m as
// an interactive (block_actions) envelope and returns it.
func (s *Server) Press(from User, m Message, value string) Envelope {
	var b Button
	for _, x := range m.Buttons {
		if x.Value == value {
			b = x
		}
	}
	s.mu.Lock()
	actionTS := fmt.Sprintf("1700000001.%06d", s.id())
	trigger := fmt.Sprintf("trig%d", s.id())
	s.mu.Unlock()
	msg := map[string]any{"type": "message", "user": BotUser, "bot_id": "B0001", "text": m.Text, "ts": m.TS}
	container := map[string]any{"type": "message", "message_ts": m.TS, "channel_id": m.Channel, "is_ephemeral": false}
	if m.ThreadTS != "" {
		msg["thread_ts"], container["thread_ts"] = m.ThreadTS, m.ThreadTS
	}
	payload, _ := json.Marshal(map[string]any{
		"type": "block_actions", "user": map[string]any{"id": from.ID, "username": from.Name, "name": from.Name, "team_id": "T0001"},
		"api_app_id": "A0001", "token": "verification-token", "container": container, "trigger_id": trigger,
		"team": map[string]any{"id": "T0001", "domain": "fake"}, "channel": map[string]any{"id": m.Channel, "name": "chan"},
		"message": msg, "response_url": s.URL + "/actions/" + trigger,
		"actions": []any{map[string]any{"action_id": b.ActionID, "block_id": "tandem_question", "type": "button", "value": value,
			"text": map[string]any{"type": "plain_text", "text": b.Text, "emoji": true}, "action_ts": actionTS}},
	})
	return s.queue(Envelope{Type: "interactive", Payload: payload})
}

// DropAndRedeliver drops the Socket Mode connection as if the network
// failed before the last n acknowledgements reached Slack: those
// envelopes are delivered again on the next connection (retry_attempt 1).
func (s *Server) DropAndRedeliver(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n = min(n, len(s.acked))
	again := s.acked[len(s.acked)-n:]
	s.acked = s.acked[:len(s.acked)-n]
	for _, e := range again {
		s.pending = append(s.pending, &envelope{Envelope: e.Envelope, id: fmt.Sprintf("env-%d", s.id()), retry: e.retry + 1})
	}
	s.dropLocked()
	s.touch()
}

func (s *Server) dropLocked() {
	select {
	case <-s.drop:
	default:
		close(s.drop)
	}
}

// Disconnect sends Slack's disconnect message on the current connection
// (reason "refresh_requested", "warning", "link_disabled"), as Slack does
// before it closes a connection it is refreshing.
func (s *Server) Disconnect(reason string) {
	msg, _ := json.Marshal(map[string]any{"type": "disconnect", "reason": reason,
		"debug_info": map[string]any{"host": "applink-fake"}})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.controls = append(s.controls, msg)
	s.touch()
}

// RateLimit makes the next n chat.postMessage/chat.update calls answer
// 429 with Retry-After: 1.
func (s *Server) RateLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimit = n
}

// Connections returns how many Socket Mode connections were opened.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// Pending returns how many envelopes are not acknowledged.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Messages returns copies of the bot's messages in channel, oldest first.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.messages {
		if m.Channel == channel {
			out = append(out, *m)
		}
	}
	return out
}

// Files returns the files the bot shared.
func (s *Server) Files() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]File(nil), s.files...)
}

// Ephemerals returns the ephemeral messages the bot posted.
func (s *Server) Ephemerals() []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ephemeral(nil), s.ephemerals...)
}

// Calls returns the Web API methods called so far.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// Post sends env to an Events API endpoint as Slack does: events as JSON,
// interactions as a form with payload=, signed with secret (v0 HMAC-SHA256
// of "v0:timestamp:body"). It returns the status and body of the answer.
func (s *Server) Post(ctx context.Context, endpoint, secret string, env Envelope) (int, string, error) {
	body, ct := []byte(env.Payload), "application/json"
	if env.Type == "interactive" {
		body, ct = []byte(url.Values{"payload": {string(env.Payload)}}.Encode()), "application/x-www-form-urlencoded"
	}
	return PostSigned(ctx, endpoint, secret, ct, body)
}

// PostSigned posts body signed with secret, as Slack signs requests.
func PostSigned(ctx context.Context, endpoint, secret, contentType string, body []byte) (int, string, error) {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	_, _ = mac.Write([]byte("v0:" + ts + ":"))
	_, _ = mac.Write(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func reply(w http.ResponseWriter, v map[string]any) {
	v["ok"] = true
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": code})
}

// token is the request's token: the Authorization header or the token
// form field (slack-go sends form posts with token=).
func token(r *http.Request) string {
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return t
	}
	return r.PostForm.Get("token")
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/link/":
		s.socket(w, r)
		return
	case strings.HasPrefix(r.URL.Path, "/files-pri/"):
		s.download(w, r)
		return
	case strings.HasPrefix(r.URL.Path, "/upload/"):
		s.receiveUpload(w, r)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/api/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if err := r.ParseForm(); err != nil {
		fail(w, "invalid_form_data")
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, method)
	limited := false
	if strings.HasPrefix(method, "chat.") && s.rateLimit > 0 {
		s.rateLimit--
		limited = true
	}
	s.mu.Unlock()
	if limited {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		fail(w, "ratelimited")
		return
	}
	want := s.BotToken
	if method == "apps.connections.open" {
		want = s.AppToken
	}
	if token(r) != want {
		fail(w, "invalid_auth")
		return
	}
	f := r.PostForm
	switch method {
	case "auth.test":
		reply(w, map[string]any{"url": "https://fake.slack.com/", "team": "Fake", "user": "tandem", "team_id": "T0001",
			"user_id": BotUser, "bot_id": "B0001"})
	case "apps.connections.open":
		reply(w, map[string]any{"url": "ws" + strings.TrimPrefix(s.URL, "http") + "/link/?ticket=t" + strconv.Itoa(s.Connections())})
	case "chat.postMessage":
		s.postMessage(w, f)
	case "chat.update":
		s.update(w, f)
	case "chat.postEphemeral":
		s.mu.Lock()
		s.ephemerals = append(s.ephemerals, Ephemeral{Channel: f.Get("channel"), User: f.Get("user"), ThreadTS: f.Get("thread_ts"), Text: f.Get("text")})
		ts := s.ts()
		s.touch()
		s.mu.Unlock()
		reply(w, map[string]any{"message_ts": ts})
	case "files.getUploadURLExternal":
		n, _ := strconv.Atoi(f.Get("length"))
		if f.Get("filename") == "" || n <= 0 {
			fail(w, "invalid_arguments")
			return
		}
		s.mu.Lock()
		fid := fmt.Sprintf("F%d", s.id())
		s.uploads[fid] = &upload{name: f.Get("filename")}
		s.mu.Unlock()
		reply(w, map[string]any{"upload_url": s.URL + "/upload/" + fid, "file_id": fid})
	case "files.completeUploadExternal":
		s.complete(w, f)
	default:
		fail(w, "unknown_method")
	}
}

func (s *Server) postMessage(w http.ResponseWriter, f url.Values) {
	ch, text := f.Get("channel"), f.Get("text")
	if ch == "" {
		fail(w, "channel_not_found")
		return
	}
	buttons, err := parseButtons(f.Get("blocks"))
	if err != nil {
		fail(w, "invalid_blocks")
		return
	}
	if strings.TrimSpace(text) == "" && buttons == nil {
		fail(w, "no_text")
		return
	}
	if len([]rune(text)) > 40000 {
		fail(w, "msg_too_long")
		return
	}
	s.mu.Lock()
	m := &Message{Channel: ch, TS: s.ts(), ThreadTS: f.Get("thread_ts"), Text: text, Buttons: buttons}
	s.messages = append(s.messages, m)
	s.touch()
	s.mu.Unlock()
	reply(w, map[string]any{"channel": ch, "ts": m.TS, "message": map[string]any{"type": "message", "user": BotUser, "text": text, "ts": m.TS}})
}

func (s *Server) update(w http.ResponseWriter, f url.Values) {
	ch, ts := f.Get("channel"), f.Get("ts")
	buttons, err := parseButtons(f.Get("blocks"))
	if err != nil {
		fail(w, "invalid_blocks")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m.Channel == ch && m.TS == ts {
			m.Text = f.Get("text")
			if f.Has("blocks") {
				m.Buttons = buttons
			}
			m.Edits++
			s.touch()
			reply(w, map[string]any{"channel": ch, "ts": ts, "text": m.Text})
			return
		}
	}
	fail(w, "message_not_found")
}

// parseButtons reads the buttons of a message's blocks ("" or "[]": none).
func parseButtons(blocks string) ([]Button, error) {
	if blocks == "" {
		return nil, nil
	}
	var bs []struct {
		Type     string `json:"type"`
		Elements []struct {
			Type     string `json:"type"`
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
			Style    string `json:"style"`
			Text     struct {
				Text string `json:"text"`
			} `json:"text"`
		} `json:"elements"`
	}
	if err := json.Unmarshal([]byte(blocks), &bs); err != nil {
		return nil, err
	}
	var out []Button
	for _, b := range bs {
		if b.Type != "actions" {
			continue
		}
		for _, e := range b.Elements {
			if e.Type == "button" {
				out = append(out, Button{ActionID: e.ActionID, Text: e.Text.Text, Value: e.Value, Style: e.Style})
			}
		}
	}
	return out, nil
}

func (s *Server) receiveUpload(w http.ResponseWriter, r *http.Request) {
	fid := strings.TrimPrefix(r.URL.Path, "/upload/")
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		http.Error(w, "bad upload", http.StatusBadRequest)
		return
	}
	fh := r.MultipartForm.File["file"]
	if len(fh) == 0 {
		http.Error(w, "no file", http.StatusBadRequest)
		return
	}
	f, err := fh[0].Open()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	data, _ := io.ReadAll(f)
	_ = f.Close()
	s.mu.Lock()
	u := s.uploads[fid]
	if u != nil {
		u.data = data
	}
	s.mu.Unlock()
	if u == nil {
		http.NotFound(w, r)
		return
	}
	_, _ = fmt.Fprintf(w, "OK - %d", len(data))
}

func (s *Server) complete(w http.ResponseWriter, f url.Values) {
	var files []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(f.Get("files")), &files); err != nil || len(files) == 0 {
		fail(w, "invalid_arguments")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []any
	for _, x := range files {
		u := s.uploads[x.ID]
		if u == nil || u.data == nil || u.done {
			fail(w, "file_not_found")
			return
		}
		u.done = true
		s.files = append(s.files, File{Channel: f.Get("channel_id"), ThreadTS: f.Get("thread_ts"), Name: u.name, Title: x.Title,
			Comment: f.Get("initial_comment"), Contents: u.data})
		out = append(out, map[string]any{"id": x.ID, "title": x.Title})
	}
	s.touch()
	reply(w, map[string]any{"files": out})
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.BotToken {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	data, ok := s.userFiles[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(data)
}

// socket serves a Socket Mode connection: hello, then every envelope not
// yet acknowledged, pings every few seconds, acks read back.
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: []string{"api.slack.com"}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	s.mu.Lock()
	s.connections++
	select {
	case <-s.drop:
		s.drop = make(chan struct{})
	default:
	}
	drop := s.drop
	s.touch()
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	hello, _ := json.Marshal(map[string]any{"type": "hello", "num_connections": 1,
		"debug_info":      map[string]any{"host": "applink-fake", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": "A0001"}})
	if c.Write(ctx, websocket.MessageText, hello) != nil {
		return
	}
	// Acks.
	go func() {
		defer cancel()
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			var ack struct {
				EnvelopeID string `json:"envelope_id"`
			}
			if json.Unmarshal(data, &ack) != nil {
				continue
			}
			s.mu.Lock()
			for i, e := range s.pending {
				if e.id == ack.EnvelopeID {
					s.acked = append(s.acked, e)
					s.pending = append(s.pending[:i], s.pending[i+1:]...)
					break
				}
			}
			s.touch()
			s.mu.Unlock()
		}
	}()
	ping := time.NewTicker(5 * time.Second)
	defer ping.Stop()
	sent := map[string]bool{}
	for {
		s.mu.Lock()
		var out []*envelope
		for _, e := range s.pending {
			if !sent[e.id] {
				out = append(out, e)
				sent[e.id] = true
			}
		}
		controls := s.controls
		s.controls = nil
		ch := s.changed
		s.mu.Unlock()
		for _, c2 := range controls {
			if c.Write(ctx, websocket.MessageText, c2) != nil {
				return
			}
		}
		for _, e := range out {
			retryReason := ""
			if e.retry > 0 {
				retryReason = "timeout"
			}
			data, _ := json.Marshal(map[string]any{"envelope_id": e.id, "type": e.Type, "payload": e.Payload,
				"accepts_response_payload": false, "retry_attempt": e.retry, "retry_reason": retryReason})
			if c.Write(ctx, websocket.MessageText, data) != nil {
				return
			}
		}
		select {
		case <-ch:
		case <-ping.C:
			_ = c.Ping(ctx)
		case <-drop:
			return // abrupt, as a network failure is
		case <-ctx.Done():
			return
		}
	}
}
