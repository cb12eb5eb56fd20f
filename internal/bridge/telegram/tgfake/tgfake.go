// Package tgfake is a Telegram Bot API server on loopback for tests: the
// real wire format (https://core.telegram.org/bots/api) of the methods the
// bridge uses — getMe, getUpdates (long polling with offsets confirming
// updates), setWebhook/deleteWebhook (and updates POSTed to the webhook
// with its secret header), sendMessage, editMessageText, sendDocument,
// answerCallbackQuery, getFile and file downloads — with requests taken
// as multipart form, URL-encoded form or JSON, as Telegram takes them.
// A test plays the users (Message, Press, Document) and reads what the
// bot did (Messages, Documents, Answers).
package tgfake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge/chatfake"
)

// User is a Telegram user as updates carry it.
type User struct {
	ID       int64  `json:"id"`
	IsBot    bool   `json:"is_bot"`
	Name     string `json:"first_name"`
	Username string `json:"username,omitempty"`
}

// Button is an inline keyboard button.
type Button struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
}

// Message is a message the bot sent, as it stands now.
type Message struct {
	ID       int64
	ChatID   int64
	ThreadID int64
	Text     string
	Buttons  [][]Button
	Edits    int
}

// Document is a file the bot sent.
type Document struct {
	ChatID   int64
	Name     string
	Caption  string
	Contents []byte
}

// Server is the fake Bot API.
type Server struct {
	Token string
	URL   string // what the bot library's server URL option takes

	srv *http.Server
	ln  net.Listener

	mu        sync.Mutex
	changed   chatfake.Changes // closed and replaced on every change
	updates   []map[string]any
	confirmed int64 // getUpdates offset: updates below it are confirmed
	nextUpd   int64
	nextMsg   int64
	messages  []*Message
	documents []Document
	answers   map[string]string // callback query id -> text
	calls     []string          // methods called, in order
	files     map[string][]byte // file_id -> contents
	webhook   struct{ url, secret string }
	failPolls int // getUpdates calls left to fail with 502
}

// Start serves the fake on 127.0.0.1 until Close.
func Start(token string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Token: token, URL: "http://" + ln.Addr().String(), ln: ln,
		answers: map[string]string{}, files: map[string][]byte{}, nextUpd: 1000, nextMsg: 1}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { _ = s.srv.Close() }

func (s *Server) touch() {
	s.changed.Touch()
}

// Wait blocks until cond holds (checked on every change) or the timeout.
func (s *Server) Wait(timeout time.Duration, cond func() bool) bool {
	return chatfake.Wait(&s.mu, &s.changed, timeout, cond)
}

func (s *Server) push(u map[string]any) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextUpd++
	u["update_id"] = s.nextUpd
	s.updates = append(s.updates, u)
	s.touch()
	return s.nextUpd
}

func (s *Server) userMessage(chatID int64, from User, extra map[string]any) map[string]any {
	s.mu.Lock()
	s.nextMsg++
	id := s.nextMsg
	s.mu.Unlock()
	m := map[string]any{"message_id": id, "from": from, "date": time.Now().Unix(),
		"chat": map[string]any{"id": chatID, "type": "private", "first_name": from.Name}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// Message queues a text message from a user; it returns the update id.
func (s *Server) Message(chatID int64, from User, text string) int64 {
	return s.push(map[string]any{"message": s.userMessage(chatID, from, map[string]any{"text": text})})
}

// Document queues a file sent by a user, with a caption.
func (s *Server) Document(chatID int64, from User, name, mimeType string, data []byte, caption string) int64 {
	s.mu.Lock()
	fid := fmt.Sprintf("file%d", len(s.files)+1)
	s.files[fid] = data
	s.mu.Unlock()
	doc := map[string]any{"file_id": fid, "file_unique_id": "u" + fid, "file_name": name, "mime_type": mimeType, "file_size": len(data)}
	return s.push(map[string]any{"message": s.userMessage(chatID, from, map[string]any{"document": doc, "caption": caption})})
}

// Press queues a press of an inline button of one of the bot's messages.
func (s *Server) Press(from User, m *Message, data string) (updateID int64, queryID string) {
	s.mu.Lock()
	queryID = fmt.Sprintf("cq%d", s.nextUpd+1)
	msg := map[string]any{"message_id": m.ID, "date": time.Now().Unix(), "text": m.Text,
		"chat": map[string]any{"id": m.ChatID, "type": "private"}}
	s.mu.Unlock()
	return s.push(map[string]any{"callback_query": map[string]any{"id": queryID, "from": from,
		"message": msg, "chat_instance": "ci", "data": data}}), queryID
}

// Unconfirm forgets which updates the bot confirmed, as Telegram
// delivers again what a bot that lost its connection did not confirm.
func (s *Server) Unconfirm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.confirmed = 0
	s.touch()
}

// FailPolls makes the next n getUpdates calls fail with 502 Bad Gateway.
func (s *Server) FailPolls(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failPolls = n
}

// Messages returns copies of the bot's messages in chatID, oldest first.
func (s *Server) Messages(chatID int64) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.messages {
		if m.ChatID == chatID {
			out = append(out, *m)
		}
	}
	return out
}

// Documents returns the files the bot sent.
func (s *Server) Documents() []Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Document(nil), s.documents...)
}

// Answer returns the text the bot answered a callback query with, and
// whether it answered.
func (s *Server) Answer(queryID string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.answers[queryID]
	return t, ok
}

// Calls returns the methods called so far.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// Webhook returns the webhook the bot set ("" when none).
func (s *Server) Webhook() (url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook.url, s.webhook.secret
}

// Deliver POSTs the queued updates to the webhook, as Telegram does, and
// returns the status of each.
func (s *Server) Deliver(ctx context.Context) ([]int, error) {
	s.mu.Lock()
	hook, secret := s.webhook.url, s.webhook.secret
	ups := s.updates
	s.updates = nil
	s.mu.Unlock()
	var codes []int
	for _, u := range ups {
		body, _ := json.Marshal(u)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook, bytes.NewReader(body))
		if err != nil {
			return codes, err
		}
		req.Header.Set("Content-Type", "application/json")
		if secret != "" {
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return codes, err
		}
		_ = resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	return codes, nil
}

// params reads a method's parameters whichever encoding the client chose.
type params struct {
	values map[string]string
	files  map[string]uploaded
}

type uploaded struct {
	name string
	data []byte
}

func readParams(r *http.Request) (params, error) {
	p := params{values: map[string]string{}, files: map[string]uploaded{}}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "multipart/form-data":
		// A method without parameters comes as an empty body (no closing
		// boundary), which Telegram takes as no parameters.
		if err := r.ParseMultipartForm(32 << 20); errors.Is(err, io.EOF) || (err != nil && strings.HasSuffix(err.Error(), "EOF")) {
			return p, nil
		} else if err != nil {
			return p, err
		}
		for k, v := range r.MultipartForm.Value {
			p.values[k] = v[0]
		}
		for k, fh := range r.MultipartForm.File {
			f, err := fh[0].Open()
			if err != nil {
				return p, err
			}
			data, err := io.ReadAll(f)
			_ = f.Close()
			if err != nil {
				return p, err
			}
			p.files[k] = uploaded{name: fh[0].Filename, data: data}
		}
	case "application/json":
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			return p, err
		}
		for k, v := range m {
			if s, ok := v.(string); ok {
				p.values[k] = s
			} else {
				b, _ := json.Marshal(v)
				p.values[k] = string(b)
			}
		}
	default:
		if err := r.ParseForm(); err != nil {
			return p, err
		}
		for k, v := range r.Form {
			p.values[k] = v[0]
		}
	}
	return p, nil
}

func (p params) int(k string) int64 {
	n, _ := strconv.ParseInt(p.values[k], 10, 64)
	return n
}

func reply(w http.ResponseWriter, result any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

func fail(w http.ResponseWriter, code int, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": code, "description": desc})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"+s.Token+"/"); ok {
		s.mu.Lock()
		data, found := s.files[strings.TrimPrefix(rest, "documents/")]
		s.mu.Unlock()
		if !found {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+s.Token+"/")
	if !ok {
		fail(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	p, err := readParams(r)
	if err != nil {
		fail(w, http.StatusBadRequest, "Bad Request: "+err.Error())
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, method)
	s.mu.Unlock()
	switch method {
	case "getMe":
		reply(w, User{ID: 1, IsBot: true, Name: "tandem", Username: "tandem_bot"})
	case "getUpdates":
		s.getUpdates(w, r, p)
	case "setWebhook":
		s.mu.Lock()
		s.webhook.url, s.webhook.secret = p.values["url"], p.values["secret_token"]
		s.touch()
		s.mu.Unlock()
		reply(w, true)
	case "deleteWebhook":
		s.mu.Lock()
		s.webhook.url, s.webhook.secret = "", ""
		s.mu.Unlock()
		reply(w, true)
	case "sendMessage":
		s.sendMessage(w, p)
	case "editMessageText":
		s.editMessageText(w, p)
	case "sendDocument":
		s.sendDocument(w, p)
	case "answerCallbackQuery":
		s.mu.Lock()
		s.answers[p.values["callback_query_id"]] = p.values["text"]
		s.touch()
		s.mu.Unlock()
		reply(w, true)
	case "getFile":
		fid := p.values["file_id"]
		s.mu.Lock()
		data, found := s.files[fid]
		s.mu.Unlock()
		if !found {
			fail(w, http.StatusBadRequest, "Bad Request: invalid file_id")
			return
		}
		reply(w, map[string]any{"file_id": fid, "file_unique_id": "u" + fid, "file_size": len(data), "file_path": "documents/" + fid})
	default:
		fail(w, http.StatusNotFound, "Not Found: method not found")
	}
}

func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, p params) {
	s.mu.Lock()
	if s.webhook.url != "" {
		s.mu.Unlock()
		fail(w, http.StatusConflict, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first")
		return
	}
	if s.failPolls > 0 {
		s.failPolls--
		s.mu.Unlock()
		fail(w, http.StatusBadGateway, "Bad Gateway")
		return
	}
	if off := p.int("offset"); off > s.confirmed {
		s.confirmed = off
	}
	s.mu.Unlock()
	timeout := time.Duration(p.int("timeout")) * time.Second
	if timeout > 2*time.Second {
		timeout = 2 * time.Second // long enough to show long polling, short for tests
	}
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		var out []map[string]any
		for _, u := range s.updates {
			if u["update_id"].(int64) >= s.confirmed {
				out = append(out, u)
			}
		}
		ch := s.changed.Next()
		s.mu.Unlock()
		if len(out) > 0 {
			reply(w, out)
			return
		}
		select {
		case <-ch:
		case <-deadline:
			reply(w, []any{})
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (s *Server) chatOf(w http.ResponseWriter, p params) (int64, bool) {
	id, err := strconv.ParseInt(p.values["chat_id"], 10, 64)
	if err != nil {
		fail(w, http.StatusBadRequest, "Bad Request: chat not found")
		return 0, false
	}
	return id, true
}

func (s *Server) sendMessage(w http.ResponseWriter, p params) {
	chat, ok := s.chatOf(w, p)
	if !ok {
		return
	}
	text := p.values["text"]
	if strings.TrimSpace(text) == "" {
		fail(w, http.StatusBadRequest, "Bad Request: message text is empty")
		return
	}
	if len([]rune(text)) > 4096 {
		fail(w, http.StatusBadRequest, "Bad Request: message is too long")
		return
	}
	var kb struct {
		InlineKeyboard [][]Button `json:"inline_keyboard"`
	}
	if rm := p.values["reply_markup"]; rm != "" {
		if err := json.Unmarshal([]byte(rm), &kb); err != nil {
			fail(w, http.StatusBadRequest, "Bad Request: can't parse reply keyboard markup JSON object")
			return
		}
	}
	s.mu.Lock()
	s.nextMsg++
	m := &Message{ID: s.nextMsg, ChatID: chat, ThreadID: p.int("message_thread_id"), Text: text, Buttons: kb.InlineKeyboard}
	s.messages = append(s.messages, m)
	s.touch()
	s.mu.Unlock()
	reply(w, map[string]any{"message_id": m.ID, "date": time.Now().Unix(), "text": text, "chat": map[string]any{"id": chat, "type": "private"}})
}

func (s *Server) editMessageText(w http.ResponseWriter, p params) {
	chat, ok := s.chatOf(w, p)
	if !ok {
		return
	}
	id := p.int("message_id")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m.ChatID == chat && m.ID == id {
			if m.Text == p.values["text"] && p.values["reply_markup"] == "" && m.Buttons == nil {
				fail(w, http.StatusBadRequest, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
				return
			}
			m.Text, m.Buttons = p.values["text"], nil
			m.Edits++
			s.touch()
			reply(w, map[string]any{"message_id": m.ID, "date": time.Now().Unix(), "text": m.Text, "chat": map[string]any{"id": chat, "type": "private"}})
			return
		}
	}
	fail(w, http.StatusBadRequest, "Bad Request: message to edit not found")
}

func (s *Server) sendDocument(w http.ResponseWriter, p params) {
	chat, ok := s.chatOf(w, p)
	if !ok {
		return
	}
	f, found := p.files["document"]
	if !found {
		fail(w, http.StatusBadRequest, "Bad Request: there is no document in the request")
		return
	}
	s.mu.Lock()
	s.nextMsg++
	id := s.nextMsg
	s.documents = append(s.documents, Document{ChatID: chat, Name: f.name, Caption: p.values["caption"], Contents: f.data})
	s.touch()
	s.mu.Unlock()
	reply(w, map[string]any{"message_id": id, "date": time.Now().Unix(), "chat": map[string]any{"id": chat, "type": "private"},
		"document": map[string]any{"file_id": "sent" + strconv.FormatInt(id, 10), "file_unique_id": "s", "file_name": f.name}})
}

// SetWebhookTarget points Deliver at url with secret (a test that posts
// to where the bridge listens instead of the public URL it registered).
func (s *Server) SetWebhookTarget(url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook.url, s.webhook.secret = url, secret
}
