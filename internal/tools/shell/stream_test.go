package shell

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// tool_output events carry at most 4 KiB each, never split a character,
// and one call streams at most maxStreamed bytes before saying how much it
// left out; the spill file still has everything.
func TestStreamedOutputIsBounded(t *testing.T) {
	env, rec := newTestEnv(t)
	const total = 3 << 20
	// Three-byte characters, so that chunk edges fall inside them.
	cmd := fmt.Sprintf("yes 'héllo wörld €€€' | head -c %d", total)
	res := run(t, context.Background(), NewBash(), env, map[string]any{"command": cmd})
	evs, _ := rec.snapshot()
	streamed, marker := 0, ""
	for _, e := range evs {
		if e.Type != "tool_output" {
			continue
		}
		if strings.Contains(e.Output, "[tandem:") {
			marker = e.Output
			continue
		}
		if len(e.Output) > flushBytes {
			t.Fatalf("an event carries %d bytes", len(e.Output))
		}
		if !utf8.ValidString(e.Output) {
			t.Fatalf("an event splits a character: %q (len %d)", e.Output[max(0, len(e.Output)-8):], len(e.Output))
		}
		streamed += len(e.Output)
	}
	const limit = 1 << 20 // docs/tools.md
	if streamed > limit || streamed < limit-8 {
		t.Errorf("streamed %d bytes, want about %d", streamed, limit)
	}
	if want := fmt.Sprintf("%d more bytes of stdout were not streamed", total-streamed); !strings.Contains(marker, want) {
		t.Errorf("marker %q lacks %q", marker, want)
	}
	p, _ := res.Meta["spill_path"].(string)
	if fi, err := os.Stat(p); err != nil || fi.Size() != total {
		t.Errorf("spill file %s: %v %v", p, fi, err)
	}
}
