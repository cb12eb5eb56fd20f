package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

// encodeParams is the body sent for req.
func encodeParams(t *testing.T, a *anthropicAdapter, req provider.Request) string {
	t.Helper()
	p, err := a.params(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.body(p, req)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("invalid body: %s", b)
	}
	return string(b)
}

func TestHistoryCacheSendsWhatAFreshAdapterSends(t *testing.T) {
	cfg := provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, APIKey: "k"}
	cached := newAnthropicAdapter(cfg)
	req := provider.Request{Model: "claude-x", System: []string{"sys"}, Tools: []provider.ToolSpec{{Name: "Read"}}, Messages: []message.Message{
		{ID: "u0", Role: message.User, Content: []message.Block{message.TextBlock("start")}},
	}}
	for i := range 12 {
		id := fmt.Sprintf("t%d", i)
		req.Messages = append(req.Messages,
			message.Message{ID: "a" + id, Role: message.Assistant, Content: []message.Block{
				{Type: message.Thinking, Text: "hmm " + id, Signature: "sig" + id, Provider: "anthropic"},
				message.TextBlock("step " + id),
				{Type: message.ToolUse, ID: id, Name: "Read", Input: json.RawMessage(`{"n":` + fmt.Sprint(i) + `}`)}}},
			message.Message{ID: "r" + id, Role: message.User, Content: []message.Block{
				{Type: message.ToolResult, ToolUseID: id, Content: []message.Block{message.TextBlock("out " + id)}}}})
		got := encodeParams(t, cached, req)
		want := encodeParams(t, newAnthropicAdapter(cfg), req)
		if got != want {
			t.Fatalf("step %d differs from a fresh adapter:\n got %s\nwant %s", i, got, want)
		}
		assertBreakpoints(t, []byte(got))
	}
	if len(cached.history.entries) == 0 {
		t.Fatal("nothing cached")
	}
	// An earlier message edited in place (same ID, say after compaction)
	// must be sent as it is now.
	req.Messages[3].Content[1].Text = "edited"
	got := encodeParams(t, cached, req)
	if !strings.Contains(got, `"edited"`) || got != encodeParams(t, newAnthropicAdapter(cfg), req) {
		t.Errorf("edited history not sent:\n%s", got)
	}
}

func TestHistoryCacheBounded(t *testing.T) {
	a := newAnthropicAdapter(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, APIKey: "k"})
	big := strings.Repeat("x", 512<<10)
	conv := func(tag string) []message.Message {
		var msgs []message.Message
		for i := range 6 {
			role := message.User
			if i%2 == 1 {
				role = message.Assistant
			}
			msgs = append(msgs, message.Message{ID: fmt.Sprint(i), Role: role,
				Content: []message.Block{message.TextBlock(fmt.Sprintf("%s %d %s", tag, i, big))}})
		}
		return msgs
	}
	// Two conversations of ~2.5 MiB of cached turns each share the adapter.
	for range 2 {
		for _, tag := range []string{"a", "b"} {
			if _, err := a.anthropicMessages(conv(tag)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a.history.bytes > maxHistoryBytes {
		t.Errorf("cache holds %d bytes, limit %d", a.history.bytes, maxHistoryBytes)
	}
	// The latest request's turns are never evicted.
	before := len(a.history.entries)
	if _, err := a.anthropicMessages(conv("b")); err != nil {
		t.Fatal(err)
	}
	if len(a.history.entries) != before {
		t.Errorf("entries changed from %d to %d on a repeated request", before, len(a.history.entries))
	}
	sum := 0
	for _, e := range a.history.entries {
		sum += len(e.raw)
	}
	if sum != a.history.bytes {
		t.Errorf("byte count %d, entries hold %d", a.history.bytes, sum)
	}
}

func TestAnthropicTurns(t *testing.T) {
	msg := func(role message.Role, blocks ...message.Block) message.Message {
		return message.Message{ID: "m", Role: role, Content: blocks}
	}
	msgs := []message.Message{
		msg(message.User, message.TextBlock("a")),
		msg(message.User, message.TextBlock("b")),
		msg(message.Assistant, message.Block{Type: message.Thinking, Text: "t", Signature: "s", Provider: "anthropic"}),
		msg(message.Assistant, message.TextBlock("visible")),
		msg(message.User, message.TextBlock("")),
		msg(message.Assistant, message.TextBlock("more")),
	}
	turns, err := anthropicTurns(msgs)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(turns)
	if want := "[{user [0 1]} {assistant [2 3 5]}]"; got != want {
		t.Errorf("turns %s, want %s", got, want)
	}
	if _, err := anthropicTurns([]message.Message{{ID: "x", Role: "system"}}); err == nil || !strings.Contains(err.Error(), "unknown role") {
		t.Errorf("unknown role: %v", err)
	}
}

func TestAnthropicConcurrentCalls(t *testing.T) {
	url := anthropicSSE(t, `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`, nil)
	p, _ := New(provider.Config{Name: "anthropic", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
	req := providertest.SimpleRequest("m")
	req.Tools = []provider.ToolSpec{{Name: "Read"}}
	req.Messages = append(req.Messages,
		message.Message{ID: "a", Role: message.Assistant, Content: []message.Block{message.TextBlock("x")}},
		message.Message{ID: "u2", Role: message.User, Content: []message.Block{message.TextBlock("y")}})
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := p.Stream(t.Context(), req, nil)
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
