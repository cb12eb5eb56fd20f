// Package lkfake is Feishu/Lark's open platform on loopback for tests:
// the tenant access token, the IM endpoints the bridge uses (create a
// message, update a card by PATCH, upload a file, download a message's
// resource) and the long connection: POST /callback/ws/endpoint hands
// out the WebSocket address with the client's config, and the
// WebSocket carries the SDK's protobuf frames (pbbp2.Frame, encoded
// with the SDK's own generated type): ping and pong control frames,
// event data frames with their headers (type, message_id, sum, seq,
// trace_id), and the client's response frames (a JSON Response with
// the code and, for a card callback, its answer). Event payloads are
// schema 2.0 as Feishu documents them (im.message.receive_v1,
// card.action.trigger). Or, after Hook, events are posted to the app's
// webhook, encrypted and signed with its Encrypt Key (webhook.go). A test
// plays the users (Message, Image, Press), redelivers events, drops the
// connection and reads what the bot did.
package lkfake

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
	larkws "github.com/larksuite/oapi-sdk-go/v3/ws"

	"github.com/tandem-agent/tandem/internal/bridge/chatfake"
)

const tenantToken = "t-fake-tenant-token"

// Button is a card button.
type Button struct {
	Label string
	Value string // the "tandem" key of its value
}

// Message is a message the bot sent, as it stands now.
type Message struct {
	ID, ChatID, Type string
	Text             string // a card's text (its divs), a file's key
	Buttons          []Button
	Updates          int
	UpdateMulti      bool // a card the bot may update
}

// Response is the client's answer to an event frame.
type Response struct {
	Code int
	Data json.RawMessage // a card callback's answer (toast)
}

type event struct {
	id      string
	payload []byte
}

// Server is the fake open platform.
type Server struct {
	AppID, AppSecret string
	URL              string // what the platform's BaseURL takes

	srv *http.Server

	mu        sync.Mutex
	changed   chatfake.Changes // closed and replaced on every change
	next      int
	conns     []*wsConn
	connects  int
	events    []event
	responses map[string][]Response // event id -> responses, in order
	messages  []*Message
	files     map[string][]byte // file key -> contents (uploaded by the bot)
	resources map[string][]byte // image key -> contents (sent by users)
	hook      *hook             // delivery by HTTP callback (webhook.go), nil: none
	closed    chan struct{}     // closed by Close
}

type wsConn struct {
	ws *websocket.Conn
	mu sync.Mutex
}

func (c *wsConn) send(f *larkws.Frame) error {
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ws.WriteMessage(websocket.BinaryMessage, b)
}

// Start serves the fake on 127.0.0.1 until Close.
func Start(appID, appSecret string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{AppID: appID, AppSecret: appSecret, URL: "http://" + ln.Addr().String(),
		responses: map[string][]Response{}, files: map[string][]byte{}, resources: map[string][]byte{}, closed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /open-apis/auth/v3/tenant_access_token/internal", s.token)
	mux.HandleFunc("POST /callback/ws/endpoint", s.endpoint)
	mux.HandleFunc("GET /ws", s.websocket)
	mux.HandleFunc("POST /open-apis/im/v1/messages", s.create)
	mux.HandleFunc("PATCH /open-apis/im/v1/messages/{id}", s.patch)
	mux.HandleFunc("POST /open-apis/im/v1/files", s.upload)
	mux.HandleFunc("GET /open-apis/im/v1/messages/{id}/resources/{key}", s.resource)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server and its connections.
func (s *Server) Close() {
	_ = s.srv.Close()
	s.Drop()
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
}

func (s *Server) touch() {
	s.changed.Touch()
}

func (s *Server) id(prefix string) string {
	s.next++
	return fmt.Sprintf("%s%06d", prefix, s.next)
}

// Wait blocks until cond holds (checked on every change) or the timeout.
func (s *Server) Wait(timeout time.Duration, cond func() bool) bool {
	return chatfake.Wait(&s.mu, &s.changed, timeout, cond)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": code, "msg": msg})
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	var b struct {
		AppID     string `json:"app_id"`
		AppSecret string `json:"app_secret"`
	}
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&b)
	if b.AppID != s.AppID || b.AppSecret != s.AppSecret {
		writeJSON(w, map[string]any{"code": 10014, "msg": "app secret invalid"})
		return
	}
	writeJSON(w, map[string]any{"code": 0, "msg": "ok", "tenant_access_token": tenantToken, "expire": 7200})
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Authorization") != "Bearer "+tenantToken {
		fail(w, http.StatusBadRequest, 99991663, "Invalid access token for authorization. Please make a request with token attached.")
		return false
	}
	return true
}

// endpoint answers the ws client's request for its connection address.
func (s *Server) endpoint(w http.ResponseWriter, r *http.Request) {
	var b struct {
		AppID     string `json:"AppID"`
		AppSecret string `json:"AppSecret"`
	}
	_ = json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&b)
	if b.AppID != s.AppID || b.AppSecret != s.AppSecret {
		writeJSON(w, map[string]any{"code": larkws.AuthFailed, "msg": "app id or secret invalid"})
		return
	}
	s.mu.Lock()
	s.connects++
	device := s.id("dev")
	s.mu.Unlock()
	writeJSON(w, map[string]any{"code": 0, "msg": "ok", "data": map[string]any{
		"URL": "ws" + strings.TrimPrefix(s.URL, "http") + "/ws?device_id=" + device + "&service_id=7",
		// The server sets the client's pace: reconnect at once and then
		// every second, ping every two minutes.
		"ClientConfig": map[string]any{"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 0, "PingInterval": 120}}})
}

func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &wsConn{ws: ws}
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.touch()
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
	for {
		mt, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if mt != websocket.BinaryMessage {
			continue
		}
		var f larkws.Frame
		if f.Unmarshal(data) != nil {
			continue
		}
		hs := larkws.Headers(f.Headers)
		switch {
		case larkws.FrameType(f.Method) == larkws.FrameTypeControl && hs.GetString(larkws.HeaderType) == string(larkws.MessageTypePing):
			var pong larkws.Headers
			pong.Add(larkws.HeaderType, string(larkws.MessageTypePong))
			_ = c.send(&larkws.Frame{Method: int32(larkws.FrameTypeControl), Service: f.Service, Headers: pong})
		case larkws.FrameType(f.Method) == larkws.FrameTypeData:
			var resp struct {
				Code int    `json:"code"`
				Data []byte `json:"data"`
			}
			_ = json.Unmarshal(f.Payload, &resp)
			s.mu.Lock()
			id := hs.GetString(larkws.HeaderMessageID)
			s.responses[id] = append(s.responses[id], Response{Code: resp.Code, Data: resp.Data})
			s.touch()
			s.mu.Unlock()
		}
	}
}

// Connected reports whether a long connection is open.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns) > 0
}

// Connects returns how many connection addresses were handed out.
func (s *Server) Connects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects
}

// Drop closes the long connections (the client reconnects).
func (s *Server) Drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.ws.Close()
	}
}

// deliver sends an event frame on the open connections, or posts it to
// the webhook (s.mu held).
func (s *Server) deliver(e event) {
	if s.hook != nil {
		s.hook.queue <- e
		s.touch()
		return
	}
	var hs larkws.Headers
	hs.Add(larkws.HeaderType, string(larkws.MessageTypeEvent))
	hs.Add(larkws.HeaderMessageID, e.id)
	hs.Add(larkws.HeaderSum, "1")
	hs.Add(larkws.HeaderSeq, "0")
	hs.Add(larkws.HeaderTraceID, "trace-"+e.id)
	s.next++
	for _, c := range s.conns {
		_ = c.send(&larkws.Frame{SeqID: uint64(s.next), LogID: uint64(s.next), Service: 7, Method: int32(larkws.FrameTypeData),
			Headers: hs, Payload: e.payload})
	}
	s.touch()
}

func (s *Server) emit(eventType string, body map[string]any) string {
	id := s.id("ev")
	payload, _ := json.Marshal(map[string]any{"schema": "2.0", "header": map[string]any{"event_id": id, "event_type": eventType,
		"create_time": strconv.FormatInt(time.Now().UnixMilli(), 10), "token": s.verificationToken(), "app_id": s.AppID, "tenant_key": "tenant-1"},
		"event": body})
	e := event{id: id, payload: payload}
	s.events = append(s.events, e)
	s.deliver(e)
	return id
}

// verificationToken is the token events carry: the webhook's, none
// on the long connection (s.mu held).
func (s *Server) verificationToken() string {
	if s.hook != nil {
		return s.hook.token
	}
	return ""
}

// User is a Feishu user by the ids events carry.
type User struct{ OpenID, UserID string }

func (s *Server) message(chat string, from User, kind string, content any) string {
	c, _ := json.Marshal(content)
	return s.emit("im.message.receive_v1", map[string]any{
		"sender": map[string]any{"sender_id": map[string]any{"open_id": from.OpenID, "user_id": from.UserID, "union_id": "on_" + from.OpenID},
			"sender_type": "user", "tenant_key": "tenant-1"},
		"message": map[string]any{"message_id": s.id("om_"), "chat_id": chat, "chat_type": "group", "message_type": kind,
			"content": string(c), "create_time": strconv.FormatInt(time.Now().UnixMilli(), 10)}})
}

// Message sends a user's text message (im.message.receive_v1) and
// returns the event id.
func (s *Server) Message(chat string, from User, text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.message(chat, from, "text", map[string]string{"text": text})
}

// Image sends a user's image message.
func (s *Server) Image(chat string, from User, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := s.id("img_")
	s.resources[key] = data
	return s.message(chat, from, "image", map[string]string{"image_key": key})
}

// Press clicks a card's button (card.action.trigger) and returns the
// event id.
func (s *Server) Press(from User, m Message, value string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emit("card.action.trigger", map[string]any{
		"operator": map[string]any{"open_id": from.OpenID, "user_id": from.UserID, "tenant_key": "tenant-1"},
		"token":    "c-" + m.ID, "host": "im_message",
		"action":  map[string]any{"tag": "button", "value": map[string]any{"tandem": value}},
		"context": map[string]any{"open_message_id": m.ID, "open_chat_id": m.ChatID}})
}

// Redeliver sends every event so far again, as Feishu does with events
// it holds unacknowledged after a reconnect, and returns their ids.
func (s *Server) Redeliver() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, e := range s.events {
		s.deliver(e)
		ids = append(ids, e.id)
	}
	return ids
}

// Answered reports whether the client answered each event at least n
// times.
func (s *Server) Answered(ids []string, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if len(s.responses[id]) < n {
			return false
		}
	}
	return true
}

// Responses returns the client's answers to an event.
func (s *Server) Responses(eventID string) []Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Response(nil), s.responses[eventID]...)
}

// --- IM ---

type cardJSON struct {
	Config struct {
		UpdateMulti bool `json:"update_multi"`
	} `json:"config"`
	Elements []struct {
		Tag  string `json:"tag"`
		Text struct {
			Content string `json:"content"`
		} `json:"text"`
		Actions []struct {
			Text struct {
				Content string `json:"content"`
			} `json:"text"`
			Value map[string]string `json:"value"`
		} `json:"actions"`
	} `json:"elements"`
}

func readCard(content string, m *Message) error {
	var c cardJSON
	if err := json.Unmarshal([]byte(content), &c); err != nil {
		return err
	}
	m.Text, m.Buttons, m.UpdateMulti = "", nil, c.Config.UpdateMulti
	for _, e := range c.Elements {
		switch e.Tag {
		case "div":
			m.Text += e.Text.Content
		case "action":
			for _, a := range e.Actions {
				m.Buttons = append(m.Buttons, Button{Label: a.Text.Content, Value: a.Value["tandem"]})
			}
		}
	}
	return nil
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	if r.URL.Query().Get("receive_id_type") != "chat_id" {
		fail(w, http.StatusBadRequest, 99992402, "field validation failed: receive_id_type")
		return
	}
	var b struct {
		ReceiveID string `json:"receive_id"`
		MsgType   string `json:"msg_type"`
		Content   string `json:"content"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, 230001, err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Message{ID: s.id("om_bot"), ChatID: b.ReceiveID, Type: b.MsgType}
	switch b.MsgType {
	case "interactive":
		if err := readCard(b.Content, m); err != nil {
			fail(w, http.StatusBadRequest, 230099, "Failed to create card content")
			return
		}
	case "file":
		var f struct {
			FileKey string `json:"file_key"`
		}
		_ = json.Unmarshal([]byte(b.Content), &f)
		if _, ok := s.files[f.FileKey]; !ok {
			fail(w, http.StatusBadRequest, 230001, "invalid file_key")
			return
		}
		m.Text = f.FileKey
	default:
		fail(w, http.StatusBadRequest, 230001, "this fake takes interactive and file messages")
		return
	}
	s.messages = append(s.messages, m)
	s.touch()
	writeJSON(w, map[string]any{"code": 0, "msg": "success", "data": map[string]any{"message_id": m.ID, "chat_id": m.ChatID,
		"msg_type": m.Type, "body": map[string]any{"content": b.Content}}})
}

func (s *Server) patch(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var b struct {
		Content string `json:"content"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, 230001, err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m.ID != r.PathValue("id") {
			continue
		}
		if m.Type != "interactive" || !m.UpdateMulti {
			fail(w, http.StatusBadRequest, 230031, "only a shared card (update_multi) can be updated")
			return
		}
		if err := readCard(b.Content, m); err != nil {
			fail(w, http.StatusBadRequest, 230099, "Failed to create card content")
			return
		}
		m.Updates++
		s.touch()
		writeJSON(w, map[string]any{"code": 0, "msg": "success", "data": map[string]any{}})
		return
	}
	fail(w, http.StatusBadRequest, 230011, "The message is not found")
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		fail(w, http.StatusBadRequest, 234001, "not multipart")
		return
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var data []byte
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		if p.FormName() == "file" {
			data, _ = io.ReadAll(io.LimitReader(p, 30<<20))
		}
	}
	if data == nil {
		fail(w, http.StatusBadRequest, 234001, "no file")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := s.id("file_")
	s.files[key] = data
	writeJSON(w, map[string]any{"code": 0, "msg": "success", "data": map[string]any{"file_key": key}})
}

func (s *Server) resource(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	data, ok := s.resources[r.PathValue("key")]
	s.mu.Unlock()
	if !ok || r.URL.Query().Get("type") != "image" {
		fail(w, http.StatusBadRequest, 234003, "File not in msg.")
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Disposition", `attachment; filename="image.png"`)
	_, _ = w.Write(data)
}

// Messages returns the bot's messages in a chat, in order.
func (s *Server) Messages(chat string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.messages {
		if m.ChatID == chat {
			c := *m
			c.Buttons = append([]Button(nil), m.Buttons...)
			out = append(out, c)
		}
	}
	return out
}

// File returns a file the bot uploaded.
func (s *Server) File(key string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[key]
}
