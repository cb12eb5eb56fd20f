package discord

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/discord/dcfake"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

const (
	token   = "MTEwMDAw.test-token.abcdefghijklmnopqrstuvwxyz"
	channel = "5550001"
)

var (
	alice   = dcfake.User{ID: "4200", Username: "alice"}
	mallory = dcfake.User{ID: "6660", Username: "mallory"}
)

// start runs a Discord bridge over the real application with the
// scripted model against the fake; the workspace has proj/.
func start(t *testing.T, script scripted.Script) (*dcfake.Server, string, *testfiles.SyncBuffer, *servertest.Stack) {
	t.Helper()
	fake, err := dcfake.Start(token)
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
	plat, err := New(Config{Token: token, APIURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	logs := &testfiles.SyncBuffer{}
	b, err := bridge.New(plat, bridge.Options{Manager: stack.Manager, Records: stack.App.Store, Allow: []string{alice.ID},
		Folders: []string{ws}, FlagRules: stack.FlagRules, Log: log.New(logs, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; stack.Close() })
	if !fake.Wait(20*time.Second, fake.Connected) {
		t.Fatalf("the bot did not connect to the gateway: %s", logs.String())
	}
	return fake, ws, logs, stack
}

func waitMsg(t *testing.T, fake *dcfake.Server, what string, cond func(m dcfake.Message) bool) dcfake.Message {
	t.Helper()
	var found dcfake.Message
	ok := fake.Wait(20*time.Second, func() bool {
		for _, m := range fake.Messages(channel) {
			if cond(m) {
				found = m
				return true
			}
		}
		return false
	})
	if !ok {
		var sb strings.Builder
		for _, m := range fake.Messages(channel) {
			sb.WriteString(m.Content + "\n---\n")
		}
		t.Fatalf("timed out waiting for %s; messages:\n%s\ncalls: %v", what, sb.String(), fake.Calls())
	}
	return found
}

func containing(s string) func(dcfake.Message) bool {
	return func(m dcfake.Message) bool { return strings.Contains(m.Content, s) }
}

// A message runs a turn that edits a file once a button approves it (the
// press answered with an interaction response); a stranger's message and
// press are ignored; a stale button says it was answered; after the
// gateway asks for a reconnect the bot RESUMEs, and though the gateway
// delivers every event again none runs twice.
func TestGatewayTurnWithApprovalAndResume(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "from discord\n"})),
		scripted.TextStep("Wrote out.txt for you."),
		scripted.TextStep("Second answer."),
	}}
	fake, ws, logs, _ := start(t, script)
	fake.Message(channel, alice, "/new proj")
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	fake.Message(channel, mallory, "rm -rf everything")
	fake.Message(channel, alice, "write out.txt")
	q := waitMsg(t, fake, "the question", func(m dcfake.Message) bool { return len(m.Buttons) > 0 })
	if !strings.Contains(q.Content, "out.txt") || q.Buttons[0].Label != "Allow once" {
		t.Fatalf("question = %+v", q)
	}
	stranger := fake.Press(mallory, q, q.Buttons[0].CustomID)
	press := fake.Press(alice, q, q.Buttons[0].CustomID)
	waitMsg(t, fake, "the answer", containing("Wrote out.txt for you."))
	if b, err := os.ReadFile(filepath.Join(ws, "proj", "out.txt")); err != nil || string(b) != "from discord\n" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	answered := waitMsg(t, fake, "the question answered", containing("Allowed once by discord:alice"))
	if len(answered.Buttons) != 0 {
		t.Errorf("the answered question keeps its buttons: %+v", answered.Buttons)
	}
	if r, ok := fake.Response(press); !ok || r.Type != 6 {
		t.Errorf("the press was answered with %+v, %v; want a deferred update (type 6)", r, ok)
	}
	if _, ok := fake.Response(stranger); ok {
		t.Error("the stranger's press was answered")
	}
	// The same button again (another device showed it still): told so.
	stale := fake.Press(alice, q, q.Buttons[0].CustomID)
	if !fake.Wait(20*time.Second, func() bool { _, ok := fake.Response(stale); return ok }) {
		t.Fatal("the stale press was not answered")
	}
	if r, _ := fake.Response(stale); r.Type != 4 || r.Flags != 64 || !strings.Contains(r.Content, "Already answered") {
		t.Errorf("stale press answered with %+v; want an ephemeral 'Already answered'", r)
	}
	if !strings.Contains(logs.String(), "ignored an update from user 6660") {
		t.Errorf("the stranger is not logged: %s", logs.String())
	}
	for _, m := range fake.Messages(channel) {
		if strings.Contains(m.Content, "rm -rf") {
			t.Errorf("the stranger's prompt reached the session: %q", m.Content)
		}
	}
	if id, _, hb := fake.Counts(); id != 1 || hb < 1 {
		t.Errorf("identifies %d, heartbeats %d; want 1 and some", id, hb)
	}

	// Discord asks for a reconnect (opcode 7); the bot RESUMEs and the
	// gateway delivers everything again: nothing runs twice.
	before := len(fake.Messages(channel))
	fake.Reconnect(true)
	if !fake.Wait(30*time.Second, func() bool { _, r, _ := fake.Counts(); return r == 1 && fake.Connected() }) {
		t.Fatalf("the bot did not resume: %v; %s", fake.Calls(), logs.String())
	}
	if id, _, _ := fake.Counts(); id != 1 {
		t.Errorf("the bot identified again (%d) instead of resuming", id)
	}
	fake.Message(channel, alice, "/status")
	waitMsg(t, fake, "the status after the resume", containing("(idle)"))
	for _, m := range fake.Messages(channel)[before:] {
		if strings.Contains(m.Content, "Second answer") || strings.Contains(m.Content, "New session") || len(m.Buttons) > 0 {
			t.Errorf("an event ran again after the resume: %q", m.Content)
		}
	}
	if !strings.Contains(logs.String(), "already") && !strings.Contains(logs.String(), "processed before") {
		t.Errorf("the redelivered events were not recognised: %s", logs.String())
	}
}

// An answer longer than Discord's 2000 characters goes in parts, each
// within the limit, through a 429 the rate limiter waits out; an image
// the user attaches reaches the prompt as an image.
func TestLongAnswerRateLimitAndImage(t *testing.T) {
	long := strings.Repeat("All work and no play makes Jack a dull boy. ", 100) // 4400 characters
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep(long)}}
	fake, _, _, stack := start(t, script)
	fake.Message(channel, alice, "/new proj")
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	fake.RateLimit(1)
	fake.Message(channel, alice, "what is in this picture?", dcfake.Attachment{Name: "shot.png", ContentType: "image/png", Data: buf.Bytes()})
	if !fake.Wait(30*time.Second, func() bool {
		var all string
		for _, m := range fake.Messages(channel) {
			all += m.Content
		}
		for _, f := range fake.Files(channel) {
			all += string(f.Contents)
		}
		return strings.Count(all, "dull boy") >= 100
	}) {
		t.Fatalf("the long answer did not arrive whole: %+v", fake.Messages(channel))
	}
	for _, m := range fake.Messages(channel) {
		if n := len([]rune(m.Content)); n > 2000 {
			t.Errorf("a message of %d characters", n)
		}
	}
	limited := false
	for _, c := range fake.Calls() {
		limited = limited || strings.HasSuffix(c, " 429")
	}
	if !limited {
		t.Errorf("no call met the rate limit: %v", fake.Calls())
	}
	ctx := context.Background()
	bd, err := stack.App.Store.Binding(ctx, "discord", channel)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := stack.Manager.Messages(ctx, bd.SessionID)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("messages: %v, %v", msgs, err)
	}
	var text, images int
	for _, b := range msgs[0].Content {
		switch b.Type {
		case "image":
			images++
		case "text":
			if strings.Contains(b.Text, "what is in this picture?") {
				text++
			}
		}
	}
	if text != 1 || images != 1 {
		t.Errorf("the prompt has %d texts and %d images; want the text and the image: %+v", text, images, msgs[0].Content)
	}
}
