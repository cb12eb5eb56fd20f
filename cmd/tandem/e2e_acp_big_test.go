package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// Messages over the ACP Go SDK's 10 MiB reach the model whole: a prompt of
// 12 MiB of text and one with a 30 MiB embedded resource run to end_turn
// and the model server sees every byte; a token of tandem's spool the
// client writes itself is literal text; a message over the 64 MiB cap is
// refused naming the cap and the fix, and the connection goes on; loading
// the sessions replays the long prompts in chunks, no line tandem writes
// longer than the SDK reads.
func TestACPLargeMessages(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	d := startACP(t, x)
	prompt := func(sid string, blocks ...any) {
		t.Helper()
		if r := d.mustCall("session/prompt", map[string]any{"sessionId": sid, "prompt": blocks}); r["stopReason"] != "end_turn" {
			t.Fatalf("prompt: %v", r)
		}
	}
	sawLast := func(want string) {
		t.Helper()
		reqs := x.srv.MainRequests()
		got := userText(t, reqs[len(reqs)-1].RawBody)
		if !strings.Contains(got, want) {
			t.Fatalf("the model got a user message of %d bytes (sha256 %s) without the %d bytes sent (sha256 %s)", len(got), sha(got), len(want), sha(want))
		}
	}

	text12 := bigText("twelve", 12<<20)
	sid1 := d.newSession(x)
	prompt(sid1, map[string]any{"type": "text", "text": text12})
	sawLast(text12)

	res30 := bigText("thirty", 30<<20)
	sid2 := d.newSession(x)
	prompt(sid2, map[string]any{"type": "text", "text": "summarise this"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///big.txt", "mimeType": "text/plain", "text": res30}})
	sawLast("<context ref=\"file:///big.txt\">\n" + res30 + "\n</context>")

	// A client cannot name a spooled string: its token is its text.
	forged := "tandem-acp-spool:" + strings.Repeat("0123456789abcdef", 2)
	sid3 := d.newSession(x)
	prompt(sid3, map[string]any{"type": "text", "text": "look: " + forged})
	sawLast("look: " + forged)

	// Over the cap: a clear error, and the connection goes on.
	d.next++
	over := d.next
	d.send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"%s"}]}}`,
		over, sid3, strings.Repeat("x", 65<<20))))
	if _, rerr := d.await(over); rerr == nil || rerr.Code != -32600 || !strings.Contains(rerr.Message, "64 MiB") || !strings.Contains(rerr.Message, "resource links") {
		t.Fatalf("a prompt over the cap was answered %+v", rerr)
	}
	prompt(sid3, map[string]any{"type": "text", "text": "still there?"})
	sawLast("still there?")

	// Replayed, a long prompt comes in chunks.
	for _, c := range []struct{ sid, want string }{{sid1, text12}, {sid2, res30}} {
		d.Updates = nil
		d.mustCall("session/load", map[string]any{"sessionId": c.sid, "cwd": x.Work, "mcpServers": []any{}})
		chunks := 0
		for _, u := range d.Updates {
			if u["sessionUpdate"] == "user_message_chunk" {
				chunks++
			}
		}
		if got := d.texts("user_message_chunk"); !strings.Contains(got, c.want) || chunks < 2 {
			t.Errorf("replayed %d user chunks of %d bytes (sha256 %s), want the %d bytes sent (sha256 %s)", chunks, len(got), sha(got), len(c.want), sha(c.want))
		}
	}
	if d.MaxLine > 10<<20-1 {
		t.Errorf("tandem wrote a line of %d bytes, over the 10 MiB a client on the ACP Go SDK reads", d.MaxLine)
	}
}

// An untrusted folder's session says once, as its first prompt starts,
// what it runs without (the file, the keys, `tandem trust DIR`) — after
// session/new has answered, so an editor knows the session — and the
// prompt runs.
func TestACPUntrustedFolderNotice(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	x.WriteFile(".claude/settings.json", `{"permissions":{"allow":["Bash(make:*)"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`)
	d := startACP(t, x)
	sid := d.newSession(x)
	if len(d.Updates) > 0 {
		for _, u := range d.Updates {
			if u["sessionUpdate"] == "agent_message_chunk" {
				t.Errorf("a message came before session/new answered: %v", u)
			}
		}
	}
	for i, text := range []string{"hello", "again"} {
		if r := d.mustCall("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}); r["stopReason"] != "end_turn" {
			t.Fatalf("prompt %d: %v", i, r)
		}
	}
	var notices []string
	for _, u := range d.Updates {
		c, _ := u["content"].(map[string]any)
		if s, _ := c["text"].(string); u["sessionUpdate"] == "agent_message_chunk" && strings.Contains(s, "trust") {
			notices = append(notices, s)
		}
	}
	if len(notices) != 1 {
		t.Fatalf("%d notices: %q (updates %v)", len(notices), notices, d.Updates)
	}
	for _, want := range []string{".claude/settings.json", "permissions.allow", "hooks", "tandem trust " + x.Work} {
		if !strings.Contains(notices[0], want) {
			t.Errorf("the notice does not name %q: %s", want, notices[0])
		}
	}
	b, _ := json.Marshal(d.Updates)
	if first := strings.Index(string(b), "tandem trust"); first > strings.Index(string(b), `"ok"`) {
		t.Errorf("the notice came after the answer: %s", b)
	}
}
