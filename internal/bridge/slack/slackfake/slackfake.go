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
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge/chatfake"
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
	Type    string // "events_api", "interactive" or "slash_commands"
	Payload json.RawMessage
}

type envelope struct {
	Envelope
	id       string
	retry    int
	response json.RawMessage // the ack's payload
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
	changed     chatfake.Changes // closed and replaced on every change
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
	s := &Server{URL: "http://" + ln.Addr().String(), BotToken: botToken, AppToken: appToken,
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
	s.changed.Touch()
}

func (s *Server) id() int {
	s.nextID++
	return s.nextID
}

// ts is a message timestamp, Slack's message id ("1700000000.000101").
func (s *Server) ts() string { return fmt.Sprintf("1700000000.%06d", s.id()) }

// Wait blocks until cond holds (checked on every change) or the timeout.
func (s *Server) Wait(timeout time.Duration, cond func() bool) bool {
	return chatfake.Wait(&s.mu, &s.changed, timeout, cond)
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
