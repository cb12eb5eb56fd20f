package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakePlatform is an in-memory Platform: the test feeds updates, the
// bridge's output is recorded as a transcript.
type fakePlatform struct {
	updates chan Update
	lim     Limits

	mu      sync.Mutex
	nextID  int
	msgs    map[string]string // message id -> current text
	order   []string          // message ids in sending order
	files   map[string]string // name -> content
	buttons map[string][]Button
	chatOf  map[string]string // message id -> the chat's key
	notices []string
	log     []string    // every call, in order
	at      []time.Time // when each send or edit happened
	changed chan struct{}
}

func newFake() *fakePlatform {
	return &fakePlatform{updates: make(chan Update, 16), lim: Limits{MaxText: 4096}, msgs: map[string]string{},
		files: map[string]string{}, buttons: map[string][]Button{}, chatOf: map[string]string{}, changed: make(chan struct{}, 1)}
}

func (f *fakePlatform) Name() string   { return "fake" }
func (f *fakePlatform) Limits() Limits { return f.lim }

var errDisconnected = errors.New("disconnected")

// Receive delivers the fed updates; a nil Update disconnects.
func (f *fakePlatform) Receive(ctx context.Context, handle func(context.Context, Update)) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case u := <-f.updates:
			if u.ID == "disconnect" {
				return errDisconnected
			}
			handle(ctx, u)
		}
	}
}

func (f *fakePlatform) record(format string, args ...any) {
	f.log = append(f.log, fmt.Sprintf(format, args...))
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *fakePlatform) Send(_ context.Context, c Chat, text string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	id := fmt.Sprint(f.nextID)
	f.msgs[id] = text
	f.chatOf[id] = c.Key()
	f.order = append(f.order, id)
	f.at = append(f.at, time.Now())
	f.record("send %s: %s", id, text)
	return id, nil
}

func (f *fakePlatform) Edit(_ context.Context, _ Chat, id, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.msgs[id]; !ok {
		return fmt.Errorf("no message %s", id)
	}
	f.msgs[id] = text
	f.at = append(f.at, time.Now())
	delete(f.buttons, id)
	f.record("edit %s: %s", id, text)
	return nil
}

func (f *fakePlatform) SendFile(_ context.Context, _ Chat, name string, data []byte, caption string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[name] = string(data)
	f.record("file %s: %s", name, caption)
	return nil
}

func (f *fakePlatform) SendButtons(ctx context.Context, c Chat, text string, buttons []Button) (string, error) {
	id, err := f.Send(ctx, c, text)
	f.mu.Lock()
	f.buttons[id] = buttons
	f.mu.Unlock()
	return id, err
}

func (f *fakePlatform) AnswerPress(_ context.Context, p Press, notice string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notices = append(f.notices, notice)
	f.record("notice %s: %q", p.ID, notice)
	return nil
}

// transcript is every message's current text, in sending order.
func (f *fakePlatform) transcript() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var sb strings.Builder
	for _, id := range f.order {
		fmt.Fprintf(&sb, "[%s] %s\n", id, f.msgs[id])
	}
	return sb.String()
}

// waitFor polls until cond holds of the fake (deadline 20 s).
func (f *fakePlatform) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; transcript:\n%s\nlog:\n%s", what, f.transcript(), strings.Join(f.snapshotLog(), "\n"))
		}
		select {
		case <-f.changed:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (f *fakePlatform) snapshotLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

func (f *fakePlatform) has(s string) bool { return strings.Contains(f.transcript(), s) }

// buttonsOf returns the buttons of the message holding text.
func (f *fakePlatform) buttonsOf(text string) (string, []Button) { return f.buttonsIn("", text) }

// buttonsIn returns the buttons of the message holding text in the chat
// (any chat for "").
func (f *fakePlatform) buttonsIn(chat, text string) (string, []Button) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, bs := range f.buttons {
		if strings.Contains(f.msgs[id], text) && (chat == "" || f.chatOf[id] == chat) {
			return id, bs
		}
	}
	return "", nil
}

// textsIn are the current texts of the chat's messages holding text.
func (f *fakePlatform) textsIn(chat, text string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, id := range f.order {
		if f.chatOf[id] == chat && strings.Contains(f.msgs[id], text) {
			out = append(out, f.msgs[id])
		}
	}
	return out
}
