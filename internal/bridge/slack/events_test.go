package slack

import (
	"testing"
)

// Which events become prompts, and in which chat.
func TestEventUpdateHearsPeopleOnly(t *testing.T) {
	p, err := New(Config{BotToken: "xoxb-1", AppToken: "xapp-1"})
	if err != nil {
		t.Fatal(err)
	}
	p.botUser = "UBOT"
	ev := func(event string) []byte {
		return []byte(`{"type":"event_callback","event_id":"Ev1","event":` + event + `}`)
	}
	cases := []struct {
		name, event  string
		heard        bool
		chat, thread string
		text         string
	}{
		{"a DM", `{"type":"message","user":"U1","text":"fix &lt;this&gt; &amp; that","ts":"1.1","channel":"D1","channel_type":"im"}`, true, "D1", "", "fix <this> & that"},
		{"a channel message without a mention", `{"type":"message","user":"U1","text":"hello all","ts":"1.2","channel":"C1","channel_type":"channel"}`, false, "", "", ""},
		{"a mention starts a thread", `{"type":"message","user":"U1","text":"<@UBOT> /new proj","ts":"1.3","channel":"C1","channel_type":"channel"}`, true, "C1", "1.3", "/new proj"},
		{"a thread reply", `{"type":"message","user":"U1","text":"go on","ts":"1.5","thread_ts":"1.3","channel":"C1","channel_type":"channel"}`, true, "C1", "1.3", "go on"},
		{"the bot's own message", `{"type":"message","user":"UBOT","text":"answer","ts":"1.6","channel":"D1","channel_type":"im"}`, false, "", "", ""},
		{"another bot", `{"type":"message","bot_id":"B2","user":"U9","text":"beep","ts":"1.7","channel":"D1","channel_type":"im"}`, false, "", "", ""},
		{"an edit", `{"type":"message","subtype":"message_changed","channel":"D1","channel_type":"im","ts":"1.8"}`, false, "", "", ""},
		{"app_mention (its message event is taken)", `{"type":"app_mention","user":"U1","text":"<@UBOT> hi","ts":"1.9","channel":"C1"}`, false, "", "", ""},
	}
	for _, c := range cases {
		up, ok := p.eventUpdate(ev(c.event))
		if ok != c.heard {
			t.Errorf("%s: heard = %v", c.name, ok)
			continue
		}
		if ok && (up.Chat.ID != c.chat || up.Chat.Thread != c.thread || up.Text != c.text || up.ID != "Ev1" || up.User != "U1") {
			t.Errorf("%s: %+v", c.name, up)
		}
	}
	if _, ok := p.eventUpdate([]byte(`{"type":"event_callback","event":{"type":"message","user":"U1","text":"x","channel":"D1","channel_type":"im"}}`)); ok {
		t.Error("an event without an event_id was taken (it could not be deduplicated)")
	}
}
