package feishu

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The long connection drops; the SDK asks for a new address and
// reconnects; Feishu delivers every event again on the new connection and
// none runs twice.
func TestReconnectDoesNotRepeat(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("First answer."), scripted.TextStep("Second answer.")}}
	fake, _, logs, _ := start(t, script)
	fake.Message(chat, alice, "/new proj")
	waitMsg(t, fake, "the new session", containing("New session ses_"))
	fake.Message(chat, alice, "hello")
	waitMsg(t, fake, "the answer", containing("First answer."))
	before := len(fake.Messages(chat))
	fake.Drop()
	if !fake.Wait(20*time.Second, func() bool { return fake.Connects() >= 2 && fake.Connected() }) {
		t.Fatalf("the app did not reconnect: %s", logs.String())
	}
	again := fake.Redeliver()
	if !fake.Wait(20*time.Second, func() bool { return fake.Answered(again, 2) }) {
		t.Fatal("the redelivered events were not answered")
	}
	fake.Message(chat, alice, "/status")
	waitMsg(t, fake, "the status after the reconnect", containing("Session ses_")) // idle or not: the turn may be ending
	for _, m := range fake.Messages(chat)[before:] {
		if strings.Contains(m.Text, "Second answer") || strings.Contains(m.Text, "New session") {
			t.Errorf("an event ran again after the reconnect: %q", m.Text)
		}
	}
	if !strings.Contains(logs.String(), "was processed before: skipped") {
		t.Errorf("no redelivered event was recognised: %s", logs.String())
	}
}
