package compact

import (
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
)

// PruneStats says what Prune changed in a request.
type PruneStats struct {
	// Boundary is the number of old steps whose tool results were cleared.
	Boundary int
	Cleared  int   // tool results replaced by a placeholder
	Capped   int   // results cut to MaxResultTokens
	Images   int   // images dropped
	Saved    int64 // estimated tokens removed
}

// Prune returns the messages as they should be sent: tool results and
// images of steps older than the last PruneKeepSteps steps are replaced by
// placeholders naming the call, and any result larger than MaxResultTokens
// is cut (also with pruning off). msgs is not modified; the store keeps
// everything.
//
// The boundary moves in chunks of PruneChunkSteps steps and only when it
// clears at least PruneMinTokens, so between moves every request starts
// with the same bytes and the provider's prompt cache keeps hitting.
func Prune(msgs []message.Message, c Config) ([]message.Message, PruneStats) {
	var st PruneStats
	var steps []int // index of each assistant message
	for i, m := range msgs {
		if m.Role == message.Assistant {
			steps = append(steps, i)
		}
	}
	b := len(steps) - c.keepSteps()
	if !c.PruneOn() {
		b = 0 // results stay, but the cap on huge ones still applies
	}
	if b > 0 {
		b -= b % c.chunkSteps()
	}
	end := 0 // messages before end are old
	if b > 0 {
		end = steps[b]
		if clearable(msgs[:end]) < c.minPrune() {
			end, b = 0, 0
		}
	}
	st.Boundary = b
	calls := toolCalls(msgs)
	out := make([]message.Message, len(msgs))
	copy(out, msgs)
	maxChars := int(c.maxResult() * charsPerToken)
	for i := range out {
		m := out[i]
		if m.Kind != "" {
			continue
		}
		old := i < end
		var blocks []message.Block
		changed := false
		for _, blk := range m.Content {
			nb := blk
			switch {
			case old && blk.Type == message.ToolResult:
				before := BlockTokens(blk)
				nb.Content = []message.Block{message.TextBlock(placeholder(calls[blk.ToolUseID]))}
				st.Cleared++
				st.Saved += before - BlockTokens(nb)
				changed = true
			case old && blk.Type == message.Image:
				nb = message.TextBlock("[An image was here; it was dropped from older messages to save context.]")
				st.Images++
				st.Saved += BlockTokens(blk) - BlockTokens(nb)
				changed = true
			case blk.Type == message.ToolResult:
				if capped, ok := capResult(blk, maxChars); ok {
					st.Capped++
					st.Saved += BlockTokens(blk) - BlockTokens(capped)
					nb, changed = capped, true
				}
			}
			blocks = append(blocks, nb)
		}
		if changed {
			m.Content = blocks
			out[i] = m
		}
	}
	return out, st
}

// clearable estimates what clearing the results and images of msgs saves.
func clearable(msgs []message.Message) int64 {
	var n int64
	for _, m := range msgs {
		if m.Kind != "" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == message.ToolResult || b.Type == message.Image {
				n += BlockTokens(b)
			}
		}
	}
	return n
}

func toolCalls(msgs []message.Message) map[string]message.Block {
	out := map[string]message.Block{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == message.ToolUse {
				out[b.ID] = b
			}
		}
	}
	return out
}

// placeholder names the call so the model can repeat it when it needs the
// output again.
func placeholder(call message.Block) string {
	name := call.Name
	if name == "" {
		name = "a tool"
	}
	return fmt.Sprintf("[Old tool result cleared to save context. The call was %s %s; call the tool again if you need its output.]",
		name, shorten(string(call.Input), 300))
}

// capResult cuts a result's text to maxChars, keeping its head and tail.
func capResult(b message.Block, maxChars int) (message.Block, bool) {
	total := 0
	for _, c := range b.Content {
		if c.Type == message.Text {
			total += len(c.Text)
		}
	}
	if total <= maxChars {
		return b, false
	}
	var sb strings.Builder
	for _, c := range b.Content {
		if c.Type == message.Text {
			sb.WriteString(c.Text)
		}
	}
	text := sb.String()
	head, tail := maxChars*3/4, maxChars/4
	cut := len(text) - head - tail
	nb := b
	nb.Content = []message.Block{message.TextBlock(validUTF8(text[:head]) +
		fmt.Sprintf("\n[... %d characters cut from this result to save context; call the tool again with a narrower range to see them ...]\n", cut) +
		validUTF8(text[len(text)-tail:]))}
	return nb, true
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return validUTF8(s[:n]) + "…"
}

// validUTF8 drops a rune split by byte slicing.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "") }
