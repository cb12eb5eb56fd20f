package anthropic

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/tandem-agent/tandem/internal/message"
)

// turn is one API message: the indexes of the tandem messages (all of one
// role) that it is made of.
type turn struct {
	role message.Role
	msgs []int
}

// anthropicTurns groups the conversation into API messages. Consecutive
// messages of one role are merged (the API wants turns to alternate); a turn
// with nothing the API accepts (an assistant turn of thinking alone, a user
// turn of empty text) is dropped, and the turns around it merge.
func anthropicTurns(msgs []message.Message) ([]turn, error) {
	var out []turn
	var cur turn
	flush := func() {
		switch {
		case len(cur.msgs) == 0 || !visibleTurn(msgs, cur):
		case len(out) > 0 && out[len(out)-1].role == cur.role:
			out[len(out)-1].msgs = append(out[len(out)-1].msgs, cur.msgs...)
		default:
			out = append(out, cur)
		}
		cur = turn{}
	}
	for i, m := range msgs {
		if m.Role != message.User && m.Role != message.Assistant {
			return nil, fmt.Errorf("message %d (%s): unknown role %q", i, m.ID, m.Role)
		}
		if m.Role != cur.role {
			flush()
			cur.role = m.Role
		}
		cur.msgs = append(cur.msgs, i)
	}
	flush()
	return out, nil
}

// visibleTurn mirrors what the converters keep: a user turn needs text, an
// image or a tool result; an assistant turn needs text or a tool call.
func visibleTurn(msgs []message.Message, t turn) bool {
	for _, i := range t.msgs {
		for _, b := range msgs[i].Content {
			switch b.Type {
			case message.Text:
				if b.Text != "" {
					return true
				}
			case message.Image, message.ToolResult:
				if t.role == message.User {
					return true
				}
			case message.ToolUse:
				if t.role == message.Assistant {
					return true
				}
			}
		}
	}
	return false
}

func convertTurn(name string, msgs []message.Message, t turn) (anthropic.MessageParam, error) {
	var blocks []anthropic.ContentBlockParamUnion
	for _, i := range t.msgs {
		if t.role == message.Assistant {
			blocks = append(blocks, anthropicAssistant(name, msgs[i])...)
			continue
		}
		conv, err := anthropicUser(msgs[i])
		if err != nil {
			return anthropic.MessageParam{}, fmt.Errorf("message %d (%s): %w", i, msgs[i].ID, err)
		}
		blocks = append(blocks, conv...)
	}
	if t.role == message.Assistant {
		return anthropic.NewAssistantMessage(blocks...), nil
	}
	return anthropic.NewUserMessage(blocks...), nil
}

// anthropicMessages converts the conversation. Every turn but the last is
// the same as on the previous step, so it is encoded once and then served
// from the adapter's history cache; the last turn is converted afresh and
// carries the cache breakpoint.
func (a *anthropicAdapter) anthropicMessages(msgs []message.Message) ([]json.RawMessage, error) {
	turns, err := anthropicTurns(msgs)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(turns))
	gen := a.history.begin()
	defer a.history.end(gen)
	for i, t := range turns {
		if i == len(turns)-1 {
			mp, err := convertTurn(a.cfg.Name, msgs, t)
			if err != nil {
				return nil, err
			}
			markLastBlock(mp)
			raw, err := json.Marshal(mp)
			if err != nil {
				return nil, fmt.Errorf("encode message %d: %w", t.msgs[0], err)
			}
			out[i] = raw
			continue
		}
		key := a.history.key(msgs, t)
		raw, ok := a.history.get(key, gen)
		if !ok {
			mp, err := convertTurn(a.cfg.Name, msgs, t)
			if err != nil {
				return nil, err
			}
			if raw, err = json.Marshal(mp); err != nil {
				return nil, fmt.Errorf("encode message %d: %w", t.msgs[0], err)
			}
			a.history.put(key, raw, gen)
		}
		out[i] = raw
	}
	return out, nil
}

// maxHistoryBytes bounds the encoded turns kept beyond those the latest
// request used (another conversation on the same adapter, a sub-agent).
const maxHistoryBytes = 4 << 20

// historyCache keeps encoded conversation turns by a hash of everything
// that goes into them. Without it, each step re-encodes the whole
// conversation through the SDK's reflection-based encoder (about 1 ms and
// 2,000 allocations at 60 messages, growing with every step).
type historyCache struct {
	mu      sync.Mutex
	seed    maphash.Seed
	entries map[[2]uint64]*historyEntry
	bytes   int
	gen     uint64
}

type historyEntry struct {
	raw  []byte
	used uint64 // generation of the last request that used it
}

func newHistoryCache() historyCache {
	return historyCache{seed: maphash.MakeSeed(), entries: map[[2]uint64]*historyEntry{}}
}

func (c *historyCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	return c.gen
}

func (c *historyCache) get(key [2]uint64, gen uint64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	e.used = max(e.used, gen)
	return e.raw, true
}

func (c *historyCache) put(key [2]uint64, raw []byte, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.bytes -= len(old.raw)
	}
	c.entries[key] = &historyEntry{raw: raw, used: gen}
	c.bytes += len(raw)
}

// end evicts the least recently used turns, never those request gen used,
// while the cache holds more than maxHistoryBytes.
func (c *historyCache) end(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes <= maxHistoryBytes {
		return
	}
	keys := make([][2]uint64, 0, len(c.entries))
	for k, e := range c.entries {
		if e.used < gen {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [2]uint64) int {
		return cmp.Compare(c.entries[a].used, c.entries[b].used)
	})
	for _, k := range keys {
		if c.bytes <= maxHistoryBytes {
			break
		}
		c.bytes -= len(c.entries[k].raw)
		delete(c.entries, k)
	}
}

// key identifies a turn: a seeded 64-bit hash of its role and every field
// of its blocks (each written with its length, so that no two different
// turns write the same bytes), and the total length hashed as a second
// check.
func (c *historyCache) key(msgs []message.Message, t turn) [2]uint64 {
	k := turnHasher{}
	k.h.SetSeed(c.seed)
	k.field(string(t.role))
	for _, i := range t.msgs {
		k.field("\x00msg")
		k.blocks(msgs[i].Content)
	}
	return [2]uint64{k.h.Sum64(), k.n}
}

type turnHasher struct {
	h maphash.Hash
	n uint64 // bytes hashed
}

func (k *turnHasher) blocks(blocks []message.Block) {
	k.int(len(blocks))
	for _, b := range blocks {
		for _, s := range [...]string{string(b.Type), b.Text, b.Signature, b.Data, b.Provider, b.ID, b.Name,
			b.ToolUseID, b.MediaType, b.ImageData} {
			k.field(s)
		}
		k.int(len(b.Input))
		_, _ = k.h.Write(b.Input)
		k.n += uint64(len(b.Input))
		if b.IsError {
			k.int(1)
		} else {
			k.int(0)
		}
		k.blocks(b.Content)
	}
}

func (k *turnHasher) field(s string) {
	k.int(len(s))
	_, _ = k.h.WriteString(s)
	k.n += uint64(len(s))
}

func (k *turnHasher) int(n int) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	_, _ = k.h.Write(b[:])
	k.n += 8
}
