package feishu

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge/feishu/lkfake"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

const (
	verificationToken = "v3rificationT0kenABCDEFGH"
	encryptKey        = "encrypt-key-0123456789abcdef"
)

// startHook runs a bridge receiving by webhook (encrypted with key when it
// is not "") and points the fake's deliveries at it; it returns the
// webhook's URL.
func startHook(t *testing.T, script scripted.Script, key string) (*lkfake.Server, string, *testfiles.SyncBuffer, *servertest.Stack, string) {
	t.Helper()
	fake, ws, logs, stack, plat := startWith(t, script, func(c *Config) {
		c.Webhook = &Webhook{Listen: "127.0.0.1:0", VerificationToken: verificationToken, EncryptKey: key}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addr, err := plat.WebhookAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + addr + "/feishu/events"
	fake.Hook(url, verificationToken, key)
	return fake, ws, logs, stack, url
}

// messageEvent is an im.message.receive_v1 event as Feishu posts it.
func messageEvent(id, token string, created time.Time, from lkfake.User, text string) []byte {
	content, _ := json.Marshal(map[string]string{"text": text})
	b, _ := json.Marshal(map[string]any{"schema": "2.0", "header": map[string]any{"event_id": id, "event_type": "im.message.receive_v1",
		"create_time": strconv.FormatInt(created.UnixMilli(), 10), "token": token, "app_id": appID, "tenant_key": "tenant-1"},
		"event": map[string]any{
			"sender": map[string]any{"sender_id": map[string]any{"open_id": from.OpenID, "user_id": from.UserID}, "sender_type": "user"},
			"message": map[string]any{"message_id": "om_" + id, "chat_id": chat, "chat_type": "group", "message_type": "text",
				"content": string(content)}}})
	return b
}

// Events by webhook, encrypted with the Encrypt Key and signed: the URL
// verification challenge is answered only with the right token; a
// message runs a turn that edits a file once a card button (a callback
// posted to the same URL) approves it; a stranger is ignored; requests
// unsigned, signed with another key or not encrypted are refused; every
// event Feishu posts again is not processed twice.
func TestWebhookEncryptedTurnWithCardApprovalAndRedelivery(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "from the feishu webhook\n"})),
		scripted.TextStep("Wrote out.txt for you."),
		scripted.TextStep("Second answer."),
	}}
	fake, ws, logs, _, url := startHook(t, script, encryptKey)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	body, challenge := lkfake.Challenge(verificationToken)
	code, answer, err := lkfake.Post(ctx, url, body, encryptKey, "")
	if err != nil || code != 200 || !strings.Contains(answer, challenge) {
		t.Fatalf("the challenge: %d %q, %v", code, answer, err)
	}
	body, _ = lkfake.Challenge("another-token")
	if code, answer, _ := lkfake.Post(ctx, url, body, encryptKey, ""); code == 200 {
		t.Errorf("a challenge with a wrong token was answered: %q", answer)
	}

	fake.Message(chat, alice, "@_user_1 /new proj")
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	// Forged requests: not signed, signed with another key, not
	// encrypted. None may run.
	forged := [][]byte{
		messageEvent("ev_forged1", verificationToken, time.Now(), alice, "/new proj"),
		messageEvent("ev_forged2", verificationToken, time.Now(), alice, "/new proj"),
		messageEvent("ev_forged3", verificationToken, time.Now(), alice, "/new proj"),
	}
	for i, f := range forged {
		var code int
		var err error
		switch i {
		case 0:
			code, _, err = lkfake.Post(ctx, url, f, encryptKey, "")
		case 1:
			code, _, err = lkfake.Post(ctx, url, f, encryptKey, "another-key")
		case 2:
			code, _, err = lkfake.Post(ctx, url, f, "", encryptKey)
		}
		if err != nil || code == 200 {
			t.Errorf("forged request %d: %d, %v; want it refused", i+1, code, err)
		}
	}
	approveWrite(t, fake, ws, logs, "from the feishu webhook\n")
	news := 0
	for _, m := range fake.Messages(chat) {
		if strings.Contains(m.Text, "rm -rf") {
			t.Errorf("the stranger's prompt reached the session: %q", m.Text)
		}
		if strings.Contains(m.Text, "New session") {
			news++
		}
	}
	if news != 1 {
		t.Errorf("%d sessions started; want 1 (a forged request ran)", news)
	}

	// Feishu posts every event again (it retries what it holds
	// unanswered): none runs twice.
	before := len(fake.Messages(chat))
	again := fake.Redeliver()
	if !fake.Wait(20*time.Second, func() bool { return fake.Answered(again, 2) }) {
		t.Fatal("the redelivered events were not answered")
	}
	fake.Message(chat, alice, "/status")
	waitMsg(t, fake, "the status after the redelivery", containing("Session ses_"))
	for _, m := range fake.Messages(chat)[before:] {
		if strings.Contains(m.Text, "Second answer") || strings.Contains(m.Text, "New session") || len(m.Buttons) > 0 {
			t.Errorf("an event ran again: %q", m.Text)
		}
	}
	if !strings.Contains(logs.String(), "was processed before: skipped") {
		t.Errorf("no redelivered event was recognised: %s", logs.String())
	}
	for _, s := range []string{appSecret, encryptKey, verificationToken} {
		if strings.Contains(logs.String(), s) {
			t.Errorf("a secret reached the log: %s", logs.String())
		}
	}
}

// Without an Encrypt Key, the verification token every event carries is
// the proof it comes from Feishu: an event without it is refused, and so
// is one older than a day (a replay the stored ids may have forgotten).
func TestWebhookPlainEventsNeedTheToken(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("Hello.")}}
	fake, _, logs, _, url := startHook(t, script, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		name  string
		event []byte
	}{
		{"no token", messageEvent("ev_p1", "", time.Now(), alice, "/new proj")},
		{"a wrong token", messageEvent("ev_p2", "guess", time.Now(), alice, "/new proj")},
		{"two days old", messageEvent("ev_p3", verificationToken, time.Now().Add(-48*time.Hour), alice, "/new proj")},
	} {
		if code, _, err := lkfake.Post(ctx, url, c.event, "", ""); err != nil || code == 200 {
			t.Errorf("%s: %d, %v; want it refused", c.name, code, err)
		}
	}
	// The SDK's own lines on the refusals are in the bridge's log (not
	// on standard output, where its default logger writes).
	if l := logs.String(); !strings.Contains(l, "bridge feishu: feishu sdk error: ") || !strings.Contains(l, "without the app's verification token") {
		t.Errorf("the SDK's refusals are not in the bridge's log:\n%s", l)
	}
	if code, _, err := lkfake.Post(ctx, url, messageEvent("ev_p4", verificationToken, time.Now(), alice, "/new proj"), "", ""); err != nil || code != 200 {
		t.Fatalf("a good event: %d, %v", code, err)
	}
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	fake.Message(chat, alice, "hi")
	waitMsg(t, fake, "the answer", containing("Hello."))
	if n := len(fake.Messages(chat)); n != 2 {
		t.Errorf("%d messages; want the new session and the answer (a refused event ran)", n)
	}
}
