package feishu

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/feishu/lkfake"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

const (
	appID     = "cli_a1b2c3d4e5f6"
	appSecret = "s3cret-app-secret-abcdefghijklmn"
	chat      = "oc_chat0001"
)

var (
	alice   = lkfake.User{OpenID: "ou_alice", UserID: "alice"}
	mallory = lkfake.User{OpenID: "ou_mallory", UserID: "mallory"}
)

// start runs a Feishu bridge over the real application with the
// scripted model against the fake's long connection; the workspace has
// proj/.
func start(t *testing.T, script scripted.Script) (*lkfake.Server, string, *testfiles.SyncBuffer, *servertest.Stack) {
	t.Helper()
	fake, ws, logs, stack, _ := startWith(t, script, nil)
	if !fake.Wait(20*time.Second, fake.Connected) {
		t.Fatalf("the app did not open its long connection: %s", logs.String())
	}
	return fake, ws, logs, stack
}

// startWith is start with the platform's config changed by edit (nil:
// none); it returns the platform too.
func startWith(t *testing.T, script scripted.Script, edit func(*Config)) (*lkfake.Server, string, *testfiles.SyncBuffer, *servertest.Stack, *Platform) {
	t.Helper()
	fake, err := lkfake.Start(appID, appSecret)
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
	cfg := Config{AppID: appID, AppSecret: appSecret, BaseURL: fake.URL}
	if edit != nil {
		edit(&cfg)
	}
	plat, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testfiles.SyncBuffer{}
	b, err := bridge.New(plat, bridge.Options{Manager: stack.Manager, Records: stack.App.Store, Allow: []string{alice.OpenID},
		Folders: []string{ws}, FlagRules: stack.FlagRules, Log: log.New(logs, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; stack.Close() })
	return fake, ws, logs, stack, plat
}

func waitMsg(t *testing.T, fake *lkfake.Server, what string, cond func(m lkfake.Message) bool) lkfake.Message {
	t.Helper()
	var found lkfake.Message
	if !fake.Wait(20*time.Second, func() bool {
		for _, m := range fake.Messages(chat) {
			if cond(m) {
				found = m
				return true
			}
		}
		return false
	}) {
		var sb strings.Builder
		for _, m := range fake.Messages(chat) {
			sb.WriteString(m.Type + ": " + m.Text + "\n---\n")
		}
		t.Fatalf("timed out waiting for %s; messages:\n%s", what, sb.String())
	}
	return found
}

func containing(s string) func(lkfake.Message) bool {
	return func(m lkfake.Message) bool { return strings.Contains(m.Text, s) }
}

// toast returns the toast of the client's last answer to a card event.
func toast(t *testing.T, fake *lkfake.Server, event string) (string, bool) {
	t.Helper()
	if !fake.Wait(20*time.Second, func() bool { return len(fake.Responses(event)) > 0 }) {
		return "", false
	}
	rs := fake.Responses(event)
	r := rs[len(rs)-1]
	if r.Code != 200 {
		t.Errorf("event %s answered with code %d", event, r.Code)
	}
	var resp struct {
		Toast *struct{ Content string } `json:"toast"`
	}
	_ = json.Unmarshal(r.Data, &resp)
	if resp.Toast == nil {
		return "", true
	}
	return resp.Toast.Content, true
}

// A message runs a turn that edits a file once a card button approves
// it; a stranger's message and press are ignored; a stale button's
// toast says it was answered; events Feishu delivers again are not
// processed twice.
func TestLongConnectionTurnWithCardApprovalAndRedelivery(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "from feishu\n"})),
		scripted.TextStep("Wrote out.txt for you."),
		scripted.TextStep("Second answer."),
	}}
	fake, ws, logs, _ := start(t, script)
	fake.Message(chat, alice, "@_user_1 /new proj")
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	approveWrite(t, fake, ws, logs, "from feishu\n")
	for _, m := range fake.Messages(chat) {
		if strings.Contains(m.Text, "rm -rf") {
			t.Errorf("the stranger's prompt reached the session: %q", m.Text)
		}
	}

	// Feishu delivers every event again (its delivery is at least
	// once): none runs twice.
	before := len(fake.Messages(chat))
	again := fake.Redeliver()
	if !fake.Wait(20*time.Second, func() bool { return fake.Answered(again, 2) }) {
		t.Fatal("the redelivered events were not answered")
	}
	fake.Message(chat, alice, "/status")
	waitMsg(t, fake, "the status after the redelivery", containing("Session ses_")) // idle or not: the turn may be ending
	for _, m := range fake.Messages(chat)[before:] {
		if strings.Contains(m.Text, "Second answer") || strings.Contains(m.Text, "New session") || len(m.Buttons) > 0 {
			t.Errorf("an event ran again: %q", m.Text)
		}
	}
	if !strings.Contains(logs.String(), "was processed before: skipped") {
		t.Errorf("no redelivered event was recognised: %s", logs.String())
	}
}

// An image the user sends is downloaded through the message-resource
// API and reaches the prompt as an image.
func TestImageIntoThePrompt(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("A red dot.")}}
	fake, _, _, stack := start(t, script)
	fake.Message(chat, alice, "/new proj")
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
	fake.Image(chat, alice, png)
	waitMsg(t, fake, "the answer", containing("A red dot."))
	ctx := context.Background()
	bd, err := stack.App.Store.Binding(ctx, "feishu", chat)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := stack.Manager.Messages(ctx, bd.SessionID)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("messages: %v, %v", msgs, err)
	}
	images := 0
	for _, b := range msgs[0].Content {
		if b.Type == "image" {
			images++
		}
	}
	if images != 1 {
		t.Errorf("the prompt has %d images; want 1: %+v", images, msgs[0].Content)
	}
}

// approveWrite drives what both ways in share once the chat has a
// session: a stranger's message is ignored; alice's prompt asks to write
// out.txt; the stranger's press does nothing; alice's press approves it
// and the file holds want; the question shows who answered, and a stale
// press's toast says it was already answered.
func approveWrite(t *testing.T, fake *lkfake.Server, ws string, logs *testfiles.SyncBuffer, want string) {
	t.Helper()
	fake.Message(chat, mallory, "rm -rf everything")
	fake.Message(chat, alice, "write out.txt")
	q := waitMsg(t, fake, "the question", func(m lkfake.Message) bool { return len(m.Buttons) > 0 })
	if !strings.Contains(q.Text, "out.txt") || q.Buttons[0].Label != "Allow once" {
		t.Fatalf("question = %+v", q)
	}
	stranger := fake.Press(mallory, q, q.Buttons[0].Value)
	if text, ok := toast(t, fake, stranger); !ok || text != "" {
		t.Errorf("the stranger's press: toast %q, answered %v", text, ok)
	}
	press := fake.Press(alice, q, q.Buttons[0].Value)
	waitMsg(t, fake, "the answer", containing("Wrote out.txt for you."))
	if b, err := os.ReadFile(filepath.Join(ws, "proj", "out.txt")); err != nil || string(b) != want {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	answered := waitMsg(t, fake, "the question answered", containing("Allowed once by feishu:ou_alice"))
	if len(answered.Buttons) != 0 {
		t.Errorf("the answered question keeps its buttons: %+v", answered.Buttons)
	}
	if text, ok := toast(t, fake, press); !ok || text != "" {
		t.Errorf("the press: toast %q, answered %v", text, ok)
	}
	stale := fake.Press(alice, q, q.Buttons[0].Value)
	if text, _ := toast(t, fake, stale); !strings.Contains(text, "Already answered") {
		t.Errorf("the stale press's toast = %q", text)
	}
	if !strings.Contains(logs.String(), "ignored an update from user ou_mallory") {
		t.Errorf("the stranger is not logged: %s", logs.String())
	}
}
