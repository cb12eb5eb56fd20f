package slack

import (
	"bytes"
	"context"
	"image"
	pngenc "image/png"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/slack/slackfake"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

const (
	botToken = "xoxb-1111-2222-TESTbottokenabcdefghij"
	appToken = "xapp-1-A0001-3333-TESTapptokenabcdefghij"
	dm       = "D0001"
	channel  = "C0001"
)

var (
	alice   = slackfake.User{ID: "UALICE01", Name: "alice"}
	mallory = slackfake.User{ID: "UMALLORY", Name: "mallory"}
)

type rig struct {
	fake  *slackfake.Server
	plat  *Platform
	ws    string
	logs  *testfiles.SyncBuffer
	stack *servertest.Stack
}

// start runs a bridge of cfg (tokens and API URL filled in) over the real
// application with the scripted model; the workspace has proj/.
func start(t *testing.T, script scripted.Script, cfg Config) rig {
	t.Helper()
	fake, err := slackfake.Start(botToken, appToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	stack, err := servertest.New(filepath.Join(dir, "data"), servertest.Config{Script: script, AskTools: []string{"Write"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.BotToken, cfg.AppToken, cfg.APIURL = botToken, appToken, fake.APIURL
	plat, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testfiles.SyncBuffer{}
	b, err := bridge.New(plat, bridge.Options{Manager: stack.Manager, Records: stack.App.Store, Allow: []string{alice.ID},
		Folders: []string{ws}, FlagRules: stack.FlagRules, Log: log.New(io.MultiWriter(logs), "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; stack.Close() })
	return rig{fake: fake, plat: plat, ws: ws, logs: logs, stack: stack}
}

func (r rig) wait(t *testing.T, ch, what string, cond func(m slackfake.Message) bool) slackfake.Message {
	t.Helper()
	var found slackfake.Message
	ok := r.fake.Wait(20*time.Second, func() bool {
		for _, m := range r.fake.Messages(ch) {
			if cond(m) {
				found = m
				return true
			}
		}
		return false
	})
	if !ok {
		var sb strings.Builder
		for _, m := range r.fake.Messages(ch) {
			sb.WriteString(m.Text + "\n---\n")
		}
		t.Fatalf("timed out waiting for %s; messages:\n%s\ncalls: %v\nlogs: %s", what, sb.String(), r.fake.Calls(), r.logs.String())
	}
	return found
}

// waitIdle asks for the status with send until it says the chat is idle:
// a turn's last text shows a moment before the turn has ended, so one
// /status right after it may still find the turn running.
func (r rig) waitIdle(t *testing.T, ch, what string, send func()) {
	t.Helper()
	statuses := func() []string {
		var out []string
		for _, m := range r.fake.Messages(ch) {
			if strings.HasPrefix(m.Text, "Session ses_") {
				out = append(out, m.Text)
			}
		}
		return out
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		n := len(statuses())
		send()
		r.wait(t, ch, what, func(slackfake.Message) bool { return len(statuses()) > n })
		if got := statuses(); strings.Contains(got[len(got)-1], "(idle)") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the chat never became idle: %q", what, statuses())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r rig) waitLog(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(r.logs.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log: %s", s, r.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func containing(s string) func(slackfake.Message) bool {
	return func(m slackfake.Message) bool { return strings.Contains(m.Text, s) }
}

func writeScript() scripted.Script {
	return scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "from slack\n"})),
		scripted.TextStep("Wrote out.txt for you."),
		scripted.TextStep("Second answer."),
	}}
}

// Socket Mode: a DM runs a turn that edits a file once a Block Kit button
// approves it; a stranger is ignored (message and press); a stale press
// is told so; every envelope is acknowledged; after the socket drops and
// Slack delivers the envelopes again, none runs twice.
func TestSocketModeTurnWithApprovalAndReconnect(t *testing.T) {
	r := start(t, writeScript(), Config{})
	fake := r.fake
	fake.Message(alice, dm, "im", "", "/new proj")
	r.wait(t, dm, "the new session", containing("New session ses_"))
	fake.Message(mallory, dm, "im", "", "rm -rf everything")
	fake.Message(alice, dm, "im", "", "write out.txt")
	q := r.wait(t, dm, "the question", func(m slackfake.Message) bool { return len(m.Buttons) > 0 })
	if !strings.Contains(q.Text, "out.txt") || q.Buttons[0].Text != "Allow once" || q.Buttons[len(q.Buttons)-1].Text != "Deny" ||
		q.Buttons[len(q.Buttons)-1].Style != "danger" {
		t.Fatalf("question = %+v", q)
	}
	fake.Press(mallory, q, q.Buttons[0].Value)
	fake.Press(alice, q, q.Buttons[0].Value)
	r.wait(t, dm, "the answer", containing("Wrote out.txt for you."))
	if b, err := os.ReadFile(filepath.Join(r.ws, "proj", "out.txt")); err != nil || string(b) != "from slack\n" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	answered := r.wait(t, dm, "the question answered", containing("Allowed once by slack:alice"))
	if len(answered.Buttons) != 0 {
		t.Errorf("the answered question kept its buttons: %+v", answered.Buttons)
	}
	// A second press of the answered question.
	fake.Press(alice, q, q.Buttons[0].Value)
	if !fake.Wait(20*time.Second, func() bool {
		for _, e := range fake.Ephemerals() {
			if e.User == alice.ID && e.Channel == dm && strings.Contains(e.Text, "Already answered") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("a stale press was not told it was answered: %+v", fake.Ephemerals())
	}
	r.waitLog(t, "ignored an update from user UMALLORY")
	for _, m := range fake.Messages(dm) {
		if strings.Contains(m.Text, "rm -rf") {
			t.Errorf("the stranger's prompt reached the session: %q", m.Text)
		}
	}
	for _, e := range fake.Ephemerals() {
		if e.User == mallory.ID {
			t.Errorf("the stranger's press was answered: %+v", e)
		}
	}
	if !fake.Wait(20*time.Second, func() bool { return fake.Pending() == 0 }) {
		t.Fatalf("%d envelopes were never acknowledged", fake.Pending())
	}

	// The socket drops before Slack got the acks: every envelope comes
	// again on the next connection, and none runs twice.
	before := len(fake.Messages(dm))
	fake.DropAndRedeliver(100)
	r.waitLog(t, "connection lost")
	if !fake.Wait(20*time.Second, func() bool { return fake.Connections() >= 2 && fake.Pending() == 0 }) {
		t.Fatalf("no reconnect: %d connections, %d envelopes unacknowledged", fake.Connections(), fake.Pending())
	}
	r.waitIdle(t, dm, "the status after the reconnect", func() { fake.Message(alice, dm, "im", "", "/status") })
	for _, m := range fake.Messages(dm)[before:] {
		if strings.Contains(m.Text, "Second answer") || strings.Contains(m.Text, "New session") || len(m.Buttons) > 0 {
			t.Errorf("an update ran again after the reconnect: %q", m.Text)
		}
	}
	r.waitLog(t, "was processed before: skipped")
	if strings.Contains(r.logs.String(), botToken) || strings.Contains(r.logs.String(), appToken) {
		t.Errorf("a token reached the log: %s", r.logs.String())
	}
}

// In a channel the bot hears only a message that mentions it, and answers
// in a thread under it; the thread is then the chat. A file sent in the
// thread is attached to the prompt; an answer longer than four messages
// continues as an uploaded file (files.uploadV2); a rate-limited call is
// retried after Slack's Retry-After.
func TestChannelThreadFilesAndLongAnswer(t *testing.T) {
	long := strings.Repeat("word ", 4000) // 20,000 characters: more than four messages
	r := start(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep(long + "THE END")}}, Config{})
	fake := r.fake
	fake.Message(alice, channel, "channel", "", "/new proj")
	fake.Message(alice, channel, "channel", "", "<@"+slackfake.BotUser+"> /new proj")
	started := r.wait(t, channel, "the new session", containing("New session ses_"))
	if started.ThreadTS == "" {
		t.Fatalf("the answer is not in a thread: %+v", started)
	}
	if n := len(fake.Messages(channel)); n != 1 {
		t.Errorf("a message without a mention was answered: %d messages", n)
	}
	fake.RateLimit(1)
	fake.MessageWithFile(alice, channel, "channel", started.ThreadTS, "summarise my notes", "notes.txt", "text/plain", []byte("remember the milk\n"))
	if !fake.Wait(30*time.Second, func() bool {
		for _, f := range fake.Files() {
			if f.Name == "answer.md" {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no answer.md uploaded; files %+v; calls %v; logs %s", fake.Files(), fake.Calls(), r.logs.String())
	}
	var rest slackfake.File
	for _, f := range fake.Files() {
		if f.Name == "answer.md" {
			rest = f
		}
	}
	if rest.ThreadTS != started.ThreadTS || rest.Channel != channel || !strings.HasSuffix(string(rest.Contents), "THE END") {
		t.Errorf("answer.md = channel %s thread %s, ends %q", rest.Channel, rest.ThreadTS, rest.Contents[max(0, len(rest.Contents)-20):])
	}
	for _, m := range fake.Messages(channel) {
		if m.ThreadTS != started.ThreadTS {
			t.Errorf("a message outside the thread: %+v", m)
		}
		if len([]rune(m.Text)) > r.plat.Limits().MaxText {
			t.Errorf("a message of %d characters", len([]rune(m.Text)))
		}
	}
	bd, err := r.stack.App.Store.Binding(context.Background(), "slack", channel+"/"+started.ThreadTS)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := r.stack.Manager.Messages(context.Background(), bd.SessionID)
	if err != nil || len(msgs) == 0 || !strings.Contains(msgs[0].Content[0].Text, "summarise my notes") ||
		!strings.Contains(msgs[0].Content[0].Text, "remember the milk") {
		t.Errorf("the prompt did not carry the file: %+v, %v", msgs, err)
	}
	if !strings.Contains(strings.Join(fake.Calls(), " "), "chat.postMessage chat.postMessage") || strings.Contains(r.logs.String(), "rate limit") {
		t.Errorf("the rate-limited call was not retried: %v\n%s", fake.Calls(), r.logs.String())
	}
}

// Events API: only requests signed with the signing secret are taken
// (others 401), the url_verification challenge is answered, a message
// runs and a button press (a form post) answers its question, and Slack's
// retry of an event does not run it twice.
func TestEventsAPISignaturesChallengeAndRetry(t *testing.T) {
	const secret = "8f742231b10e8888abcd99yyyzzz85a5"
	r := start(t, writeScript(), Config{Events: &Events{Listen: "127.0.0.1:0", SigningSecret: secret}})
	fake := r.fake
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr, err := r.plat.EventsAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hook := "http://" + addr + "/slack/events"
	challenge := []byte(`{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
	if code, _, err := slackfake.PostSigned(ctx, hook, "wrong-secret", "application/json", challenge); err != nil || code != 401 {
		t.Fatalf("a challenge with a bad signature: %d, %v; want 401", code, err)
	}
	if code, body, err := slackfake.PostSigned(ctx, hook, secret, "application/json", challenge); err != nil || code != 200 ||
		body != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		t.Fatalf("the challenge: %d %q, %v", code, body, err)
	}
	newSession := fake.Message(alice, dm, "im", "", "/new proj")
	if code, _, err := fake.Post(ctx, hook, "wrong-secret", newSession); err != nil || code != 401 {
		t.Fatalf("an event with a bad signature: %d, %v; want 401", code, err)
	}
	if code, _, err := fake.Post(ctx, hook, secret, newSession); err != nil || code != 200 {
		t.Fatalf("an event: %d, %v", code, err)
	}
	r.wait(t, dm, "the new session", containing("New session ses_"))
	if n := len(fake.Messages(dm)); n != 1 {
		t.Fatalf("the unsigned event ran: %d messages", n)
	}
	prompt := fake.Message(alice, dm, "im", "", "write out.txt")
	if code, _, err := fake.Post(ctx, hook, secret, prompt); err != nil || code != 200 {
		t.Fatalf("the prompt: %d, %v", code, err)
	}
	q := r.wait(t, dm, "the question", func(m slackfake.Message) bool { return len(m.Buttons) > 0 })
	press := fake.Press(alice, q, q.Buttons[0].Value)
	if code, _, err := fake.Post(ctx, hook, "wrong-secret", press); err != nil || code != 401 {
		t.Fatalf("a press with a bad signature: %d, %v; want 401", code, err)
	}
	if code, _, err := fake.Post(ctx, hook, secret, press); err != nil || code != 200 {
		t.Fatalf("the press: %d, %v", code, err)
	}
	r.wait(t, dm, "the answer", containing("Wrote out.txt for you."))
	if b, err := os.ReadFile(filepath.Join(r.ws, "proj", "out.txt")); err != nil || string(b) != "from slack\n" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	// Slack retries an event it got no timely answer for: same event_id.
	before := len(fake.Messages(dm))
	if code, _, err := fake.Post(ctx, hook, secret, prompt); err != nil || code != 200 {
		t.Fatalf("the retry: %d, %v", code, err)
	}
	r.waitLog(t, "was processed before: skipped")
	r.waitIdle(t, dm, "the status", func() {
		status := fake.Message(alice, dm, "im", "", "/status")
		if code, _, err := fake.Post(ctx, hook, secret, status); err != nil || code != 200 {
			t.Fatalf("status: %d, %v", code, err)
		}
	})
	for _, m := range fake.Messages(dm)[before:] {
		if strings.Contains(m.Text, "Second answer") || len(m.Buttons) > 0 {
			t.Errorf("the retried event ran again: %q", m.Text)
		}
	}
	for _, c := range fake.Calls() {
		if c == "apps.connections.open" {
			t.Error("an Events API app opened a Socket Mode connection")
		}
	}
}

// A picture the user sends in Slack is downloaded with the bot token and
// becomes an image of the prompt.
func TestPictureBecomesAnImage(t *testing.T) {
	r := start(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("A red square.")}}, Config{})
	fake := r.fake
	fake.Message(alice, dm, "im", "", "/new proj")
	r.wait(t, dm, "the new session", containing("New session ses_"))
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	var png bytes.Buffer
	if err := pngenc.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	fake.MessageWithFile(alice, dm, "im", "", "what is this?", "square.png", "image/png", png.Bytes())
	r.wait(t, dm, "the answer", containing("A red square."))
	bd, err := r.stack.App.Store.Binding(context.Background(), "slack", dm)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := r.stack.Manager.Messages(context.Background(), bd.SessionID)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("messages: %v", err)
	}
	images := 0
	for _, b := range msgs[0].Content {
		if b.Type == message.Image {
			images++
		}
	}
	if images != 1 {
		t.Errorf("the prompt has %d images: %+v", images, msgs[0].Content)
	}
}

// Slack refreshes a Socket Mode connection with a disconnect message: the
// bridge opens a new one and goes on.
func TestSocketModeRefresh(t *testing.T) {
	r := start(t, scripted.Script{}, Config{})
	fake := r.fake
	fake.Message(alice, dm, "im", "", "/new proj")
	r.wait(t, dm, "the new session", containing("New session ses_"))
	fake.Disconnect("refresh_requested")
	if !fake.Wait(20*time.Second, func() bool { return fake.Connections() >= 2 }) {
		t.Fatalf("no new connection after the disconnect message; logs: %s", r.logs.String())
	}
	r.waitIdle(t, dm, "the status on the new connection", func() { fake.Message(alice, dm, "im", "", "/status") })
}
