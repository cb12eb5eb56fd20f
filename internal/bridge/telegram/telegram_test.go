package telegram

import (
	"context"
	"github.com/tandem-agent/tandem/internal/testfiles"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/telegram/tgfake"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

const (
	token = "123456:TEST-token-abcdefghijklmnopqrstuv"
	chat  = 777
)

var (
	alice   = tgfake.User{ID: 42, Name: "Alice", Username: "alice"}
	mallory = tgfake.User{ID: 666, Name: "Mallory", Username: "mallory"}
)

// start runs a bridge of cfg (its APIURL and Token filled in) over the
// real application with the scripted model; the workspace has proj/.
func start(t *testing.T, script scripted.Script, cfg Config) (*tgfake.Server, *Platform, string, *testfiles.SyncBuffer) {
	fake, plat, ws, logs, _ := startStack(t, script, cfg)
	return fake, plat, ws, logs
}

func startStack(t *testing.T, script scripted.Script, cfg Config) (*tgfake.Server, *Platform, string, *testfiles.SyncBuffer, *servertest.Stack) {
	t.Helper()
	fake, err := tgfake.Start(token)
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
	cfg.Token, cfg.APIURL, cfg.PollTimeout = token, fake.URL, 3*time.Second
	plat, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testfiles.SyncBuffer{}
	b, err := bridge.New(plat, bridge.Options{Manager: stack.Manager, Records: stack.App.Store, Allow: []string{"42"},
		Folders: []string{ws}, FlagRules: stack.FlagRules, Log: log.New(io.MultiWriter(logs), "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; stack.Close() })
	return fake, plat, ws, logs, stack
}

func waitMsg(t *testing.T, fake *tgfake.Server, what string, cond func(m tgfake.Message) bool) tgfake.Message {
	t.Helper()
	var found tgfake.Message
	ok := fake.Wait(20*time.Second, func() bool {
		for _, m := range fake.Messages(chat) {
			if cond(m) {
				found = m
				return true
			}
		}
		return false
	})
	if !ok {
		var sb strings.Builder
		for _, m := range fake.Messages(chat) {
			sb.WriteString(m.Text + "\n---\n")
		}
		t.Fatalf("timed out waiting for %s; messages:\n%s\ncalls: %v", what, sb.String(), fake.Calls())
	}
	return found
}

func containing(s string) func(tgfake.Message) bool {
	return func(m tgfake.Message) bool { return strings.Contains(m.Text, s) }
}

func writeScript() scripted.Script {
	return scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "from telegram\n"})),
		scripted.TextStep("Wrote out.txt for you."),
		scripted.TextStep("Second answer."),
	}}
}

// Polling: a message runs a turn that edits a file once a button
// approves it; a stranger is ignored; after a lost connection Telegram
// delivers the unconfirmed updates again and none runs twice.
func TestPollingTurnWithApprovalAndReconnect(t *testing.T) {
	fake, _, ws, logs := start(t, writeScript(), Config{})
	fake.Message(chat, alice, "/new proj")
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	fake.Message(chat, mallory, "rm -rf everything")
	fake.Message(chat, alice, "write out.txt")
	q := waitMsg(t, fake, "the question", func(m tgfake.Message) bool { return len(m.Buttons) > 0 })
	if !strings.Contains(q.Text, "out.txt") || q.Buttons[0][0].Text != "Allow once" {
		t.Fatalf("question = %+v", q)
	}
	_, strangerQuery := fake.Press(mallory, &q, q.Buttons[0][0].CallbackData)
	_, query := fake.Press(alice, &q, q.Buttons[0][0].CallbackData)
	waitMsg(t, fake, "the answer", containing("Wrote out.txt for you."))
	if b, err := os.ReadFile(filepath.Join(ws, "proj", "out.txt")); err != nil || string(b) != "from telegram\n" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	waitMsg(t, fake, "the question answered", containing("Allowed once by telegram:alice"))
	if _, ok := fake.Answer(query); !ok {
		t.Error("the press was not answered (answerCallbackQuery)")
	}
	if _, ok := fake.Answer(strangerQuery); ok {
		t.Error("the stranger's press was answered")
	}
	if !strings.Contains(logs.String(), "ignored an update from user 666") {
		t.Errorf("the stranger is not logged: %s", logs.String())
	}
	for _, m := range fake.Messages(chat) {
		if strings.Contains(m.Text, "rm -rf") {
			t.Errorf("the stranger's prompt reached the session: %q", m.Text)
		}
	}

	// The connection fails, and Telegram delivers again every update the
	// bot had not confirmed: none runs twice.
	before := len(fake.Messages(chat))
	fake.FailPolls(1)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "connection lost") {
		if time.Now().After(deadline) {
			t.Fatalf("no reconnect logged: %s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	fake.Unconfirm()
	fake.Message(chat, alice, "/status")
	waitMsg(t, fake, "the status after the reconnect", containing("(idle)"))
	msgs := fake.Messages(chat)
	for _, m := range msgs[before:] {
		if strings.Contains(m.Text, "Second answer") || strings.Contains(m.Text, "New session") || len(m.Buttons) > 0 {
			t.Errorf("an update ran again after the reconnect: %q", m.Text)
		}
	}
}

// Webhook: the bot registers its webhook with a secret; a POST without
// the secret is refused; Telegram's POSTs run the prompt; a document the
// user sends is attached to the prompt.
func TestWebhookWithSecretAndAttachedFile(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("Read your notes.")}}
	fake, plat, _, _, stack := startStack(t, script, Config{Webhook: &Webhook{Listen: "127.0.0.1:0", URL: "https://bot.example/hook", Secret: "s3cret-hook"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addr, err := plat.WebhookAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !fake.Wait(20*time.Second, func() bool { u, _ := fake.Webhook(); return u != "" }) {
		t.Fatal("no webhook set")
	}
	if u, s := fake.Webhook(); u != "https://bot.example/hook" || s != "s3cret-hook" {
		t.Fatalf("webhook = %s, %s", u, s)
	}
	// Telegram posts to the public URL; the test posts to where the bridge listens.
	hook := "http://" + addr + "/hook"
	setHook(fake, hook, "wrong")
	fake.Message(chat, alice, "/new proj")
	codes, err := fake.Deliver(ctx)
	if err != nil || len(codes) != 1 || codes[0] != 403 {
		t.Fatalf("a post without the secret: %v, %v; want 403", codes, err)
	}
	// Even with the secret, a body past the limit is refused, not read
	// whole into memory.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hook, strings.NewReader(`{"update_id":1,"x":"`+strings.Repeat("a", 2<<20)+`"}`))
	req.Header.Set("X-Telegram-Bot-Api-Secret-Token", "s3cret-hook")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a 2 MiB post with the secret: %v, %v; want 413", resp, err)
	} else {
		resp.Body.Close()
	}
	setHook(fake, hook, "s3cret-hook")
	fake.Message(chat, alice, "/new proj")
	if codes, err := fake.Deliver(ctx); err != nil || codes[0] != 200 {
		t.Fatalf("deliver: %v %v", codes, err)
	}
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	fake.Document(chat, alice, "notes.txt", "text/plain", []byte("remember the milk\n"), "summarise my notes")
	if _, err := fake.Deliver(ctx); err != nil {
		t.Fatal(err)
	}
	waitMsg(t, fake, "the answer", containing("Read your notes."))
	bd, err := stack.App.Store.Binding(ctx, "telegram", "777")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := stack.Manager.Messages(ctx, bd.SessionID)
	if err != nil || len(msgs) == 0 || !strings.Contains(msgs[0].Content[0].Text, "summarise my notes") ||
		!strings.Contains(msgs[0].Content[0].Text, "remember the milk") {
		t.Errorf("the prompt did not carry the file: %+v, %v", msgs, err)
	}
	for _, c := range fake.Calls() {
		if c == "getUpdates" {
			t.Error("a webhook bot polled")
		}
	}
}

func setHook(fake *tgfake.Server, url, secret string) { fake.SetWebhookTarget(url, secret) }
