package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/bridge/telegram/tgfake"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// Inside `tandem serve` a chat and the web UI share one live session: a
// turn the chat starts runs through the server's queue (a web prompt sent
// meanwhile waits behind it), its permission question is both a chat
// button and a permission_request on the SSE stream, the first answer
// wins from either side and the other side sees it answered; a web
// prompt on the chat's session shows in the chat, its question too, and
// /stop from the chat interrupts it.
func TestServeBridgeSharesSessions(t *testing.T) {
	const token = "2222:E2E-serve-share-token-abcdefghij"
	const chat = 777
	alice := tgfake.User{ID: 42, Name: "Alice", Username: "alice"}
	// Steps are chosen by how many assistant messages the conversation
	// has: each turn takes the next ones.
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "from the chat\n"})),
		scripted.TextStep("Wrote out.txt from the chat."),
		scripted.TextStep("Hello from the web prompt."),
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "second.txt", "content": "second\n"})),
		scripted.TextStep("Wrote second.txt."),
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "third.txt", "content": "third\n"})),
		scripted.TextStep("The third turn was not stopped."),
	}})
	fake, err := tgfake.Start(token)
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	cfg, _ := json.Marshal(map[string]any{"permissions": map[string]any{"ask": []string{"Write"}}, "bridges": map[string]any{"telegram": map[string]any{
		"token": token, "api_url": fake.URL, "allow_users": []string{"42"}, "folders": []string{x.Work}}}})
	x.WriteConfig(string(cfg))
	c := startServe(t, x)

	wait := chatWait(t, fake.Wait, func() []tgfake.Message { return fake.Messages(chat) }, func() string { return c.p.Stderr() })
	has := func(s string) func(tgfake.Message) bool {
		return func(m tgfake.Message) bool { return strings.Contains(m.Text, s) }
	}
	question := func(file string) func(tgfake.Message) bool {
		return func(m tgfake.Message) bool { return len(m.Buttons) > 0 && strings.Contains(m.Text, file) }
	}

	fake.Message(chat, alice, "/new")
	created := wait("the new session", has("New session ses_"))
	id := strings.Fields(strings.TrimPrefix(created.Text, "New session "))[0]
	events := openEvents(t, c.base, c.token, id, "")
	next := func(what string, cond func(e event.Event) bool) event.Event {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatalf("the event stream ended before %s", what)
				}
				if cond(e) {
					return e
				}
			case <-deadline:
				t.Fatalf("no %s on the event stream within 30 s\nstderr:\n%s", what, c.p.Stderr())
			}
		}
	}
	asked := func(file string) func(e event.Event) bool {
		return func(e event.Event) bool {
			return e.Type == event.PermissionRequest && strings.Contains(string(e.Input), file)
		}
	}

	// 1. A chat turn's question, answered from the HTTP API.
	fake.Message(chat, alice, "write out.txt")
	start := next("the chat's prompt", func(e event.Event) bool {
		return e.Type == event.Status && e.Subtype == event.SubtypeUserMessage
	})
	if start.Text != "write out.txt" || start.Meta["origin"] != "telegram:777" {
		t.Errorf("the chat turn's user_message = %q from %v, want the chat's prompt from telegram:777", start.Text, start.Meta)
	}
	req := next("the permission question", asked("out.txt"))
	q := wait("the question's buttons in the chat", question("out.txt"))
	if _, s := c.do("GET", "/api/sessions/"+id, nil); s["status"] != "running" || s["running_prompt"] != "write out.txt" {
		t.Errorf("the server does not see the chat's turn: status %v, running_prompt %v", s["status"], s["running_prompt"])
	}
	// One turn at a time: a web prompt sent now waits for the chat's.
	if _, r := c.do("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "hello from the web"}); r["queued"] != true {
		t.Errorf("a web prompt during the chat's turn was not queued behind it: %v", r)
	}
	if code, r := c.do("POST", "/api/sessions/"+id+"/permissions/"+req.RequestID, map[string]any{"decision": "allow_once"}); code != 200 {
		t.Fatalf("answer from the API: %d %v", code, r)
	}
	answered := wait("the chat's question marked answered", func(m tgfake.Message) bool {
		return m.ID == q.ID && len(m.Buttons) == 0 && strings.Contains(m.Text, "Allowed once by http:")
	})
	_, qid := fake.Press(alice, &q, q.Buttons[0][0].CallbackData) // the stale button
	wait("the chat's answer", has("Wrote out.txt from the chat."))
	if got := x.ReadFile("out.txt"); got != "from the chat\n" {
		t.Fatalf("out.txt = %q", got)
	}
	var notice string
	if !fake.Wait(30*time.Second, func() bool {
		var ok bool
		notice, ok = fake.Answer(qid)
		return ok
	}) || notice != "Already answered." {
		t.Errorf("the stale button's press was answered %q, want Already answered. (question now %q)", notice, answered.Text)
	}

	// 2. The web prompt queued behind it runs next and shows in the chat.
	wait("the web prompt in the chat", has("💬 Prompt from the web UI or the API:\nhello from the web"))
	wait("the web turn's answer in the chat", has("Hello from the web prompt."))

	// 3. A chat turn's question answered in the chat: the API's answer
	// then loses, and the stream says who answered.
	fake.Message(chat, alice, "write second.txt")
	req = next("the second question", asked("second.txt"))
	q = wait("the second question in the chat", question("second.txt"))
	_, qid = fake.Press(alice, &q, q.Buttons[0][0].CallbackData)
	reply := next("the chat's answer on the stream", func(e event.Event) bool {
		return e.Type == event.PermissionReply && e.RequestID == req.RequestID
	})
	if by, _ := reply.Meta["by"].(string); !strings.HasPrefix(by, "telegram:") {
		t.Errorf("the answer on the stream is by %q, want the chat's user", by)
	}
	if code, r := c.do("POST", "/api/sessions/"+id+"/permissions/"+req.RequestID, map[string]any{"decision": "deny"}); code != 409 {
		t.Errorf("the API's later answer: %d %v, want 409 already_answered", code, r)
	}
	wait("the second answer", has("Wrote second.txt."))
	if got := x.ReadFile("second.txt"); got != "second\n" {
		t.Errorf("second.txt = %q", got)
	}
	if notice, _ := fake.Answer(qid); notice != "" {
		t.Errorf("the winning press was answered %q", notice)
	}

	// 4. A web turn's question shows in the chat, and the chat's /stop
	// interrupts that turn.
	c.call("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "write third.txt"})
	next("the web turn's question", asked("third.txt"))
	wait("the web turn's question in the chat", question("third.txt"))
	fake.Message(chat, alice, "/stop")
	res := next("the web turn's result", func(e event.Event) bool { return e.Type == event.Result })
	if res.Subtype != event.SubtypeInterrupted {
		t.Errorf("the web turn ended %q, want interrupted by the chat's /stop", res.Subtype)
	}
	wait("the chat told it stopped", has("⏹ Stopped."))
	if strings.Contains(c.p.Stderr(), token) {
		t.Errorf("the bot token reached the log:\n%s", c.p.Stderr())
	}
}
