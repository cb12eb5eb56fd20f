package slackfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

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
