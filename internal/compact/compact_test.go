package compact

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// conversation is a prompt then n steps, each a tool call and a result of
// size bytes.
func conversation(n, size int) []message.Message {
	msgs := []message.Message{{ID: "u0", Role: message.User, Content: []message.Block{message.TextBlock("do it")}}}
	for i := range n {
		id := fmt.Sprintf("t%d", i)
		msgs = append(msgs,
			message.Message{ID: fmt.Sprintf("a%d", i), Role: message.Assistant, Content: []message.Block{{Type: message.ToolUse, ID: id, Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"f%d.go"}`, i))}}},
			message.Message{ID: fmt.Sprintf("r%d", i), Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: id, Content: []message.Block{message.TextBlock(strings.Repeat("x", size))}}}})
	}
	return msgs
}

func resultText(m message.Message) string {
	for _, b := range m.Content {
		if b.Type == message.ToolResult {
			return b.Content[0].Text
		}
	}
	return ""
}

func TestPruneClearsOldResultsInChunks(t *testing.T) {
	cfg := Config{PruneKeepSteps: 2, PruneChunkSteps: 4, PruneMinTokens: 1000}
	// 5 steps: 5-2 = 3 old steps, rounded down to the chunk of 4: nothing.
	out, st := Prune(conversation(5, 8000), cfg)
	if st.Cleared != 0 || st.Boundary != 0 {
		t.Fatalf("5 steps: %+v", st)
	}
	if !reflect.DeepEqual(out, conversation(5, 8000)) {
		t.Fatal("nothing to prune must change nothing")
	}
	// 6 steps: 4 old steps cleared.
	msgs := conversation(6, 8000)
	out, st = Prune(msgs, cfg)
	if st.Cleared != 4 || st.Boundary != 4 || st.Saved < 7000 {
		t.Fatalf("6 steps: %+v", st)
	}
	if got := resultText(out[2]); !strings.Contains(got, "Read {\"file_path\":\"f0.go\"}") || !strings.Contains(got, "call the tool again") {
		t.Errorf("placeholder: %q", got)
	}
	if got := resultText(out[10]); len(got) != 8000 {
		t.Errorf("step 4 (kept) was cut to %d", len(got))
	}
	if len(resultText(msgs[2])) != 8000 {
		t.Error("Prune modified its input")
	}
	// 7, 8, 9 steps: the boundary stays at 4, so the prefix is byte-identical.
	for n := 7; n <= 9; n++ {
		o2, st2 := Prune(conversation(n, 8000), cfg)
		if st2.Boundary != 4 {
			t.Fatalf("%d steps: boundary %d", n, st2.Boundary)
		}
		a, _ := json.Marshal(out[:9])
		b, _ := json.Marshal(o2[:9])
		if string(a) != string(b) {
			t.Fatalf("%d steps: the pruned prefix changed", n)
		}
	}
	// 10 steps: the boundary moves by a whole chunk.
	if _, st := Prune(conversation(10, 8000), cfg); st.Boundary != 8 {
		t.Fatalf("10 steps: boundary %d", st.Boundary)
	}
}

func TestPruneWaitsUntilItCutsALot(t *testing.T) {
	cfg := Config{PruneKeepSteps: 2, PruneChunkSteps: 4, PruneMinTokens: 20000}
	if _, st := Prune(conversation(6, 400), cfg); st.Cleared != 0 {
		t.Fatalf("small results were pruned: %+v", st)
	}
}

func TestPruneCapsHugeResultsAndDropsOldImages(t *testing.T) {
	msgs := conversation(3, 200_000)
	msgs[0].Content = append(msgs[0].Content, message.Block{Type: message.Image, MediaType: "image/png", ImageData: "AAAA"})
	out, st := Prune(msgs, Config{MaxResultTokens: 1000, PruneKeepSteps: 1, PruneChunkSteps: 1, PruneMinTokens: 1})
	if st.Capped != 1 || st.Images != 1 || st.Cleared != 2 {
		t.Fatalf("stats %+v", st)
	}
	last := resultText(out[len(out)-1])
	if len(last) > 4200 || !strings.Contains(last, "characters cut") {
		t.Errorf("capped result: %d chars", len(last))
	}
	if out[0].Content[1].Type != message.Text {
		t.Error("old image kept")
	}
	if _, st := Prune(conversation(20, 8000), Config{Prune: new(bool), PruneKeepSteps: 1, PruneChunkSteps: 1, PruneMinTokens: 1}); st != (PruneStats{}) {
		t.Errorf("prune off still pruned: %+v", st)
	}
	if _, st := Prune(msgs, Config{Prune: new(bool), MaxResultTokens: 1000}); st.Capped != 3 || st.Cleared != 0 {
		t.Errorf("prune off must still cap huge results: %+v", st)
	}
}

func TestEffectiveAndCut(t *testing.T) {
	msgs := conversation(4, 400)
	cut := Cut(msgs, 250, 0)
	if cut <= 1 || msgs[cut].Role != message.Assistant {
		t.Fatalf("cut %d must start at an assistant message", cut)
	}
	b := message.Message{ID: "b1", Role: message.User, Kind: message.KindCompaction, Content: []message.Block{message.TextBlock("summary")},
		Compaction: &message.Compaction{KeepFrom: msgs[cut].ID, Trigger: TriggerAuto}}
	stored := append(append([]message.Message{}, msgs...), b)
	stored = append(stored, message.Message{ID: "after", Role: message.User, Content: []message.Block{message.TextBlock("next")}})
	eff := Effective(stored)
	if eff[0].ID != "b1" || eff[1].ID != msgs[cut].ID || eff[len(eff)-1].ID != "after" || len(eff) != 1+len(msgs)-cut+1 {
		var ids []string
		for _, m := range eff {
			ids = append(ids, m.ID)
		}
		t.Fatalf("effective: %v", ids)
	}
	if got := Effective(msgs); len(got) != len(msgs) {
		t.Fatal("no boundary must mean the stored conversation")
	}
	// Nothing fits: everything is summarised.
	if c := Cut(msgs, 1, 1); c != len(msgs) {
		t.Fatalf("cut with no room: %d", c)
	}
	// The last step does not fit in keep but in maxTail: it stays.
	if c := Cut(msgs, 1, 250); c != len(msgs)-2 || msgs[c].Role != message.Assistant {
		t.Fatalf("cut keeping the last step: %d of %d", c, len(msgs))
	}
}

func TestParseOverflowRealMessages(t *testing.T) {
	cases := []struct {
		status int
		msg    string
		limit  int64
	}{
		{400, "prompt is too long: 213456 tokens > 200000 maximum", 200000},
		{400, "input length and `max_tokens` exceed context limit: 188000 + 20000 > 200000, decrease input length or `max_tokens` and try again", 180000},
		{400, "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).", 1048576},
		{400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.", 128000},
		{400, "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.", 6384},
		{400, "This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.", 61440},
		{400, "This model's maximum context length is 128000 tokens. However, you requested 65535 output tokens and your prompt contains at least 62466 input tokens, for a total of at least 128001 tokens.", 62465},
		{400, `This endpoint's maximum context length is 200000 tokens. However, you requested about 5028244 tokens (4945291 of text input, 2953 of tool input, 80000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.`, 120000},
		{400, "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it", 4096},
		{400, "Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.", 4096},
		{400, "The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input.", 4096},
		{400, "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)", 7424},
		{400, "Your input exceeds the context window of this model. Please adjust your input and try again.", 0},
		{500, "the request exceeds the available context size, try increasing the context size or enable context shift", 0},
		{413, "Request exceeds the maximum allowed number of bytes.", 0},
	}
	for _, c := range cases {
		err := &provider.Error{Provider: "p", Status: c.status, Message: c.msg, Retryable: c.status >= 500}
		o, ok := ParseOverflow(err)
		if !ok || o.Limit != c.limit {
			t.Errorf("%q: ok=%v limit=%d, want %d", c.msg, ok, o.Limit, c.limit)
		}
	}
	o, ok := ParseOverflow(&provider.Error{Status: 400, Message: "prompt too long; exceeded max context length by 4021 tokens"})
	if !ok || o.Excess != 4021 || o.LearnedLimit(54021) != 49000 {
		t.Errorf("ollama: %+v %d", o, o.LearnedLimit(54021))
	}
	if o, _ := ParseOverflow(&provider.Error{Status: 400, Message: "This model's maximum context length is 32768 tokens. However, you requested 65535 output tokens and your prompt contains at least 1200 input tokens, for a total of at least 66735 tokens."}); !o.OutputTooLarge() || o.Limit != 32768 {
		t.Errorf("output larger than the window: %+v", o)
	}
	for _, msg := range []string{"Overloaded", "Rate limit reached for requests", "invalid x-api-key"} {
		if _, ok := ParseOverflow(&provider.Error{Status: 429, Message: msg, Retryable: true}); ok {
			t.Errorf("%q taken for an overflow", msg)
		}
	}
	if _, ok := ParseOverflow(fmt.Errorf("plain")); ok {
		t.Error("a non-provider error taken for an overflow")
	}
}

func TestCommandAndConfig(t *testing.T) {
	for in, want := range map[string]string{"/compact": "", "  /compact keep the API notes ": "keep the API notes"} {
		if f, ok := Command(in); !ok || f != want {
			t.Errorf("%q: %q %v", in, f, ok)
		}
	}
	for _, in := range []string{"/compactly", "please /compact", "compact"} {
		if _, ok := Command(in); ok {
			t.Errorf("%q taken for /compact", in)
		}
	}
	if _, err := Parse(json.RawMessage(`{"threshold": 1.5}`), "c.json"); err == nil || !strings.Contains(err.Error(), "compaction.threshold") {
		t.Errorf("bad threshold: %v", err)
	}
	if _, err := Parse(json.RawMessage(`{"treshold": 0.5}`), "c.json"); err == nil || !strings.Contains(err.Error(), "treshold") {
		t.Errorf("unknown field: %v", err)
	}
	c, err := Parse(json.RawMessage(`{"threshold": 0.5, "auto": false}`), "c.json")
	if err != nil || c.AutoOn() || c.ThresholdTokens(1000) != 500 || c.KeepRecent(200000) != 20000 {
		t.Errorf("parsed %+v %v", c, err)
	}
}
