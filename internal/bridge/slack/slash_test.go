package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge/slack/slackfake"
)

// Socket Mode: `/tandem new proj` starts a session in the DM and
// `/tandem write out.txt` (no command word) is a prompt whose question a
// button answers; every slash command envelope is acknowledged with
// response_type in_channel, another app's command ephemerally; a user
// not allow-listed is ignored; after the socket drops and Slack delivers
// the envelopes again, no command runs twice.
func TestSlashCommandsSocketMode(t *testing.T) {
	r := start(t, writeScript(), Config{})
	fake := r.fake
	fake.SlashCommand(alice, dm, "/tandem", "new proj")
	r.wait(t, dm, "the new session", containing("New session ses_"))
	fake.SlashCommand(mallory, dm, "/tandem", "new proj")
	fake.SlashCommand(alice, dm, "/other", "new proj")
	fake.SlashCommand(alice, dm, "/tandem", "write out.txt")
	q := r.wait(t, dm, "the question", func(m slackfake.Message) bool { return len(m.Buttons) > 0 })
	fake.Press(alice, q, q.Buttons[0].Value)
	r.wait(t, dm, "the answer", containing("Wrote out.txt for you."))
	if b, err := os.ReadFile(filepath.Join(r.ws, "proj", "out.txt")); err != nil || string(b) != "from slack\n" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	r.waitLog(t, "ignored an update from user UMALLORY")
	if !fake.Wait(20*time.Second, func() bool { return fake.Pending() == 0 }) {
		t.Fatalf("%d envelopes were never acknowledged", fake.Pending())
	}
	acks := fake.Responses()
	if len(acks) != 4 {
		t.Fatalf("slash command acks = %q", acks)
	}
	for i, a := range acks {
		var m struct {
			ResponseType string `json:"response_type"`
			Text         string `json:"text"`
		}
		_ = json.Unmarshal([]byte(a), &m)
		if i == 2 {
			if m.ResponseType != "ephemeral" || !strings.Contains(m.Text, "/tandem only") {
				t.Errorf("another command's ack = %s", a)
			}
		} else if m.ResponseType != "in_channel" || m.Text != "" {
			t.Errorf("ack %d = %s; want in_channel without text", i, a)
		}
	}
	news := 0
	for _, m := range fake.Messages(dm) {
		if strings.Contains(m.Text, "New session") {
			news++
		}
	}
	if news != 1 {
		t.Errorf("%d sessions started; want 1 (the stranger's or the other command ran)", news)
	}

	before := len(fake.Messages(dm))
	fake.DropAndRedeliver(100)
	r.waitLog(t, "connection lost")
	if !fake.Wait(20*time.Second, func() bool { return fake.Connections() >= 2 && fake.Pending() == 0 }) {
		t.Fatalf("no reconnect: %d connections, %d envelopes unacknowledged", fake.Connections(), fake.Pending())
	}
	r.waitIdle(t, dm, "the status after the reconnect", func() { fake.SlashCommand(alice, dm, "/tandem", "status") })
	for _, m := range fake.Messages(dm)[before:] {
		if strings.Contains(m.Text, "Second answer") || strings.Contains(m.Text, "New session") || len(m.Buttons) > 0 {
			t.Errorf("a command ran again after the reconnect: %q", m.Text)
		}
	}
}

// Events API: a slash command is a signed form post answered with the
// acknowledgement as its JSON body; unsigned and badly signed posts get
// 401 and run nothing; a user not allow-listed is ignored; `/tandem` alone
// is /help; a configured command name replaces /tandem.
func TestSlashCommandsEventsAPI(t *testing.T) {
	const secret = "8f742231b10e8888abcd99yyyzzz85a5"
	r := start(t, writeScript(), Config{Events: &Events{Listen: "127.0.0.1:0", SigningSecret: secret}, SlashCommand: "/td"})
	fake := r.fake
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr, err := r.plat.EventsAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hook := "http://" + addr + "/slack/events"
	newSession := fake.SlashCommand(alice, dm, "/td", "new proj")
	if code, _, err := fake.Post(ctx, hook, "wrong-secret", newSession); err != nil || code != 401 {
		t.Fatalf("a badly signed command: %d, %v; want 401", code, err)
	}
	unsigned, _ := http.NewRequestWithContext(ctx, http.MethodPost, hook, bytes.NewReader([]byte("command=%2Ftd&text=new+proj&user_id=UALICE01&channel_id=D0001&trigger_id=t1")))
	unsigned.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err := http.DefaultClient.Do(unsigned); err != nil || resp.StatusCode != 401 {
		t.Fatalf("an unsigned command: %v, %v; want 401", resp, err)
	} else {
		resp.Body.Close()
	}
	if code, _, err := fake.Post(ctx, hook, secret, fake.SlashCommand(mallory, dm, "/td", "new proj")); err != nil || code != 200 {
		t.Fatalf("the stranger's command: %d, %v", code, err)
	}
	code, body, err := fake.Post(ctx, hook, secret, newSession)
	if err != nil || code != 200 || !strings.Contains(body, `"response_type":"in_channel"`) {
		t.Fatalf("the command: %d %q, %v", code, body, err)
	}
	r.wait(t, dm, "the new session", containing("New session ses_"))
	if code, body, _ := fake.Post(ctx, hook, secret, fake.SlashCommand(alice, dm, "/tandem", "status")); code != 200 || !strings.Contains(body, `"response_type":"ephemeral"`) || !strings.Contains(body, "/td only") {
		t.Errorf("the default name once another is configured: %d %q", code, body)
	}
	if code, _, err := fake.Post(ctx, hook, secret, fake.SlashCommand(alice, dm, "/td", "")); err != nil || code != 200 {
		t.Fatalf("/td alone: %d, %v", code, err)
	}
	r.wait(t, dm, "the help", containing("/new DIR"))
	r.waitLog(t, "ignored an update from user UMALLORY")
	news := 0
	for _, m := range fake.Messages(dm) {
		if strings.Contains(m.Text, "New session") {
			news++
		}
	}
	if news != 1 {
		t.Errorf("%d sessions started; want 1 (a refused or ignored command ran)", news)
	}
}
