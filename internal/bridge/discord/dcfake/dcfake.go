// Package dcfake is Discord on loopback for tests: the REST endpoints the
// bridge uses (GET /api/v9/gateway, create and edit a channel message as
// JSON or as multipart with payload_json and files[n], the interaction
// callback, attachment downloads) and a WebSocket gateway speaking the
// real opcodes (https://discord.com/developers/docs/topics/gateway):
// HELLO (10), IDENTIFY (2) answered by a READY dispatch, HEARTBEAT (1)
// answered by HEARTBEAT_ACK (11), DISPATCH (0) with sequence numbers,
// RECONNECT (7), RESUME (6) answered by the missed dispatches and RESUMED,
// INVALID_SESSION (9). Payloads follow Discord's documented shapes (and
// discordgo's own test fixtures). A test plays the users (Message, Press)
// and reads what the bot did (Messages, Files, Response).
package dcfake

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tandem-agent/tandem/internal/bridge/chatfake"
)

// User is a Discord user as payloads carry it.
type User struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Bot      bool   `json:"bot,omitempty"`
}

// Button is a message component of type 2.
type Button struct {
	Label    string `json:"label"`
	Style    int    `json:"style"`
	CustomID string `json:"custom_id"`
}

// Message is a message the bot sent, as it stands now.
type Message struct {
	ID, ChannelID string
	Content       string
	Buttons       []Button
	Edits         int
}

// File is a file the bot attached to a message.
type File struct {
	ChannelID, Name, Caption string
	Contents                 []byte
}

// Attachment is a file a user sends with a message.
type Attachment struct {
	Name, ContentType string
	Data              []byte
}

// Response is an interaction's response.
type Response struct {
	Type    int
	Content string
	Flags   int
}

type dispatch struct {
	seq int64
	t   string
	d   any
}

// conn is one gateway connection; writes are serialised.
type conn struct {
	ws    *websocket.Conn
	mu    sync.Mutex
	ready bool // identified or resumed: dispatches go to it
}

func (c *conn) send(v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ws.WriteJSON(v)
}

// Server is the fake Discord.
type Server struct {
	Token string // the bot's token, without "Bot "
	URL   string // http://127.0.0.1:port: what the platform's APIURL takes
	Bot   User

	srv *http.Server

	mu         sync.Mutex
	changed    chatfake.Changes // closed and replaced on every change
	next       int64            // snowflake counter
	seq        int64
	log        []dispatch // every dispatch, in sequence order
	conns      []*conn
	sessions   map[string]bool
	replayAll  bool // the next RESUME gets every dispatch again
	messages   []*Message
	files      []File
	responses  map[string]Response // interaction id -> response
	attach     map[string][]byte   // attachment path -> contents
	identifies int
	resumes    int
	heartbeats int
	limited    int // REST message calls left to answer 429
	calls      []string
}

// Start serves the fake on 127.0.0.1 until Close.
func Start(token string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Token: token, URL: "http://" + ln.Addr().String(),
		next: 1100000000000000000, sessions: map[string]bool{}, responses: map[string]Response{}, attach: map[string][]byte{}}
	s.Bot = User{ID: s.id(), Username: "tandem-bot", Bot: true}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v9/gateway", s.gateway)
	mux.HandleFunc("GET /gateway/", s.websocket) // discordgo adds the slash
	mux.HandleFunc("POST /api/v9/channels/{channel}/messages", s.createMessage)
	mux.HandleFunc("PATCH /api/v9/channels/{channel}/messages/{message}", s.editMessage)
	mux.HandleFunc("POST /api/v9/interactions/{id}/{token}/callback", s.callback)
	mux.HandleFunc("GET /attachments/", s.download)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server and its gateway connections.
func (s *Server) Close() {
	_ = s.srv.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.ws.Close()
	}
}

func (s *Server) touch() {
	s.changed.Touch()
}

// id returns a new snowflake (s.mu held or not yet shared).
func (s *Server) id() string {
	s.next++
	return strconv.FormatInt(s.next, 10)
}

// Wait blocks until cond holds (checked on every change) or the timeout.
func (s *Server) Wait(timeout time.Duration, cond func() bool) bool {
	return chatfake.Wait(&s.mu, &s.changed, timeout, cond)
}

// --- the gateway ---

func (s *Server) gateway(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"url": "ws" + strings.TrimPrefix(s.URL, "http") + "/gateway/"})
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int64          `json:"s"`
	T  *string         `json:"t"`
}

func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("v") != "9" || r.URL.Query().Get("encoding") != "json" {
		http.Error(w, "want ?v=9&encoding=json", http.StatusBadRequest)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &conn{ws: ws}
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		for i, x := range s.conns {
			if x == c {
				s.conns = append(s.conns[:i], s.conns[i+1:]...)
				break
			}
		}
		s.touch()
		s.mu.Unlock()
		_ = ws.Close()
	}()
	if c.send(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": 41250}, "s": nil, "t": nil}) != nil {
		return
	}
	for {
		var f frame
		if err := ws.ReadJSON(&f); err != nil {
			return
		}
		switch f.Op {
		case 1: // HEARTBEAT
			s.mu.Lock()
			s.heartbeats++
			s.touch()
			s.mu.Unlock()
			if c.send(map[string]any{"op": 11, "d": nil}) != nil {
				return
			}
		case 2: // IDENTIFY
			var id struct {
				Token   string `json:"token"`
				Intents int    `json:"intents"`
			}
			_ = json.Unmarshal(f.D, &id)
			if strings.TrimPrefix(id.Token, "Bot ") != s.Token {
				_ = ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4004, "Authentication failed."))
				return
			}
			if id.Intents&(1<<15) == 0 { // MESSAGE_CONTENT
				_ = ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4014, "Disallowed intent(s)."))
				return
			}
			s.identified(c)
		case 6: // RESUME
			var res struct {
				Token     string `json:"token"`
				SessionID string `json:"session_id"`
				Seq       int64  `json:"seq"`
			}
			_ = json.Unmarshal(f.D, &res)
			if !s.resumed(c, res.SessionID, res.Seq) {
				// INVALID_SESSION, not resumable: the client identifies.
				if c.send(map[string]any{"op": 9, "d": false}) != nil {
					return
				}
			}
		}
	}
}

// identified answers IDENTIFY with READY: a new session.
func (s *Server) identified(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.identifies++
	sid := fmt.Sprintf("session-%d", s.identifies)
	s.sessions[sid] = true
	s.seq++
	ready := map[string]any{"v": 9, "user": s.Bot, "session_id": sid, "resume_gateway_url": "ws" + strings.TrimPrefix(s.URL, "http") + "/gateway/",
		"guilds": []any{}, "application": map[string]any{"id": s.Bot.ID, "flags": 0}}
	_ = c.send(map[string]any{"op": 0, "s": s.seq, "t": "READY", "d": ready})
	c.ready = true
	s.touch()
}

// resumed replays what the session missed (or, after ReplayOnResume,
// everything) and ends with RESUMED.
func (s *Server) resumed(c *conn, sid string, seq int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sessions[sid] {
		return false
	}
	s.resumes++
	from := seq
	if s.replayAll {
		from, s.replayAll = 0, false
	}
	for _, d := range s.log {
		if d.seq > from {
			_ = c.send(map[string]any{"op": 0, "s": d.seq, "t": d.t, "d": d.d})
		}
	}
	s.seq++
	_ = c.send(map[string]any{"op": 0, "s": s.seq, "t": "RESUMED", "d": map[string]any{}})
	c.ready = true
	s.touch()
	return true
}

// emit sends a dispatch to the ready connections (s.mu held); one sent
// while none is connected waits for the RESUME.
func (s *Server) emit(t string, d any) {
	s.seq++
	s.log = append(s.log, dispatch{seq: s.seq, t: t, d: d})
	for _, c := range s.conns {
		if c.ready {
			_ = c.send(map[string]any{"op": 0, "s": s.seq, "t": t, "d": d})
		}
	}
	s.touch()
}

// Reconnect tells the connected clients to reconnect (opcode 7); with
// replay, the next RESUME is answered with every dispatch so far again
// (Discord's delivery is at least once), not only the missed ones.
func (s *Server) Reconnect(replay bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replayAll = replay
	for _, c := range s.conns {
		_ = c.send(map[string]any{"op": 7, "d": nil})
		c.ready = false
	}
}

// Connected reports whether a client is identified or resumed.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		if c.ready {
			return true
		}
	}
	return false
}

// Counts returns how many IDENTIFYs, RESUMEs and HEARTBEATs came.
func (s *Server) Counts() (identifies, resumes, heartbeats int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.identifies, s.resumes, s.heartbeats
}

// --- users acting ---

// Message posts a user's message in a channel (MESSAGE_CREATE) and
// returns its id.
func (s *Server) Message(channel string, from User, text string, files ...Attachment) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.id()
	var atts []map[string]any
	for _, f := range files {
		aid := s.id()
		path := "/attachments/" + channel + "/" + aid + "/" + f.Name
		s.attach[path] = f.Data
		atts = append(atts, map[string]any{"id": aid, "filename": f.Name, "content_type": f.ContentType, "size": len(f.Data),
			"url": s.URL + path, "proxy_url": s.URL + path})
	}
	s.emit("MESSAGE_CREATE", map[string]any{"id": id, "channel_id": channel, "author": from, "content": text,
		"timestamp": time.Now().UTC().Format(time.RFC3339), "type": 0, "attachments": atts, "embeds": []any{}, "mentions": []any{}})
	return id
}

// Press clicks a button of a message (INTERACTION_CREATE of type 3) and
// returns the interaction's id.
func (s *Server) Press(from User, m Message, customID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.id()
	s.emit("INTERACTION_CREATE", map[string]any{"id": id, "application_id": s.Bot.ID, "type": 3, "token": "itoken-" + id,
		"version": 1, "channel_id": m.ChannelID, "guild_id": "9000",
		"member":  map[string]any{"user": from, "roles": []any{}},
		"message": map[string]any{"id": m.ID, "channel_id": m.ChannelID, "content": m.Content, "author": s.Bot},
		"data":    map[string]any{"custom_id": customID, "component_type": 2}})
	return id
}

// --- REST ---

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Authorization") != "Bot "+s.Token {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "401: Unauthorized", "code": 0})
		return false
	}
	return true
}

// RateLimit makes the next n message calls answer 429 (retry after 50 ms).
func (s *Server) RateLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited = n
}

// limit answers 429 while RateLimit says so (s.mu held).
func (s *Server) limit(w http.ResponseWriter, call string) bool {
	if s.limited <= 0 {
		s.calls = append(s.calls, call)
		return false
	}
	s.limited--
	s.calls = append(s.calls, call+" 429")
	w.Header().Set("Retry-After", "0.05")
	w.Header().Set("X-RateLimit-Scope", "user")
	writeJSON(w, http.StatusTooManyRequests, map[string]any{"message": "You are being rate limited.", "retry_after": 0.05, "global": false})
	s.touch()
	return true
}

// Calls returns the message calls made: "create", "edit", and "create
// 429" or "edit 429" for one answered 429.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

type component struct {
	Type       int         `json:"type"`
	Components []component `json:"components"`
	Label      string      `json:"label"`
	Style      int         `json:"style"`
	CustomID   string      `json:"custom_id"`
}

type messageBody struct {
	Content    *string      `json:"content"`
	Components *[]component `json:"components"`
}

func buttons(rows []component) []Button {
	var out []Button
	for _, r := range rows {
		for _, c := range r.Components {
			if c.Type == 2 {
				out = append(out, Button{Label: c.Label, Style: c.Style, CustomID: c.CustomID})
			}
		}
	}
	return out
}

// body decodes a message body sent as JSON or as multipart (payload_json
// and files[n]).
func body(r *http.Request) (messageBody, []Attachment, error) {
	var b messageBody
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&b)
		return b, nil, err
	}
	var files []Attachment
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return b, files, nil
		}
		if err != nil {
			return b, nil, err
		}
		data, err := io.ReadAll(io.LimitReader(p, 25<<20))
		if err != nil {
			return b, nil, err
		}
		switch name := p.FormName(); {
		case name == "payload_json":
			if err := json.Unmarshal(data, &b); err != nil {
				return b, nil, err
			}
		case strings.HasPrefix(name, "files["):
			files = append(files, Attachment{Name: p.FileName(), ContentType: p.Header.Get("Content-Type"), Data: data})
		}
	}
}

func invalid(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusBadRequest, map[string]any{"code": 50035, "message": "Invalid Form Body", "errors": msg})
}

func (s *Server) createMessage(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	b, files, err := body(r)
	if err != nil {
		invalid(w, err.Error())
		return
	}
	content := ""
	if b.Content != nil {
		content = *b.Content
	}
	if len([]rune(content)) > 2000 {
		invalid(w, "content: Must be 2000 or fewer in length.")
		return
	}
	if content == "" && len(files) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 50006, "message": "Cannot send an empty message"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit(w, "create") {
		return
	}
	m := &Message{ID: s.id(), ChannelID: r.PathValue("channel"), Content: content}
	if b.Components != nil {
		m.Buttons = buttons(*b.Components)
	}
	s.messages = append(s.messages, m)
	for _, f := range files {
		s.files = append(s.files, File{ChannelID: m.ChannelID, Name: f.Name, Caption: content, Contents: f.Data})
	}
	out := s.wire(m)
	// Discord dispatches the bot's own messages to it too.
	s.emit("MESSAGE_CREATE", out)
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) wire(m *Message) map[string]any {
	rows := []any{}
	if len(m.Buttons) > 0 {
		var cs []any
		for _, b := range m.Buttons {
			cs = append(cs, map[string]any{"type": 2, "label": b.Label, "style": b.Style, "custom_id": b.CustomID})
		}
		rows = append(rows, map[string]any{"type": 1, "components": cs})
	}
	return map[string]any{"id": m.ID, "channel_id": m.ChannelID, "content": m.Content, "author": s.Bot, "type": 0,
		"timestamp": time.Now().UTC().Format(time.RFC3339), "components": rows, "attachments": []any{}, "embeds": []any{}}
}

func (s *Server) editMessage(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	b, _, err := body(r)
	if err != nil {
		invalid(w, err.Error())
		return
	}
	if b.Content != nil && len([]rune(*b.Content)) > 2000 {
		invalid(w, "content: Must be 2000 or fewer in length.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit(w, "edit") {
		return
	}
	for _, m := range s.messages {
		if m.ID == r.PathValue("message") && m.ChannelID == r.PathValue("channel") {
			if b.Content != nil {
				m.Content = *b.Content
			}
			if b.Components != nil {
				m.Buttons = buttons(*b.Components)
			}
			m.Edits++
			s.touch()
			writeJSON(w, http.StatusOK, s.wire(m))
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"code": 10008, "message": "Unknown Message"})
}

func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Type int `json:"type"`
		Data *struct {
			Content string `json:"content"`
			Flags   int    `json:"flags"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&b); err != nil {
		invalid(w, err.Error())
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.PathValue("token") != "itoken-"+id {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"code": 50027, "message": "Invalid Webhook Token"})
		return
	}
	if _, done := s.responses[id]; done {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 40060, "message": "Interaction has already been acknowledged."})
		return
	}
	resp := Response{Type: b.Type}
	if b.Data != nil {
		resp.Content, resp.Flags = b.Data.Content, b.Data.Flags
	}
	s.responses[id] = resp
	s.touch()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.attach[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(data)
}

// --- reading what the bot did ---

// Messages returns the bot's messages in a channel, in order.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.messages {
		if m.ChannelID == channel {
			c := *m
			c.Buttons = append([]Button(nil), m.Buttons...)
			out = append(out, c)
		}
	}
	return out
}

// Files returns the files the bot attached in a channel.
func (s *Server) Files(channel string) []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []File
	for _, f := range s.files {
		if f.ChannelID == channel {
			out = append(out, f)
		}
	}
	return out
}

// Response returns an interaction's response.
func (s *Server) Response(interaction string) (Response, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.responses[interaction]
	return r, ok
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
