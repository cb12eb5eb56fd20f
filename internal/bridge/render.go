package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/event"
)

// maxParts is how many messages one answer may take before the rest is
// sent as a file.
const maxParts = 4

// renderer shows one turn in the chat: text streamed by editing one
// message (at most once per Limits.EditEvery), a line per tool call, diffs
// as files, permission questions as buttons. Events are queued by the
// session's emitter (never blocked on the network) and sent in order by
// loop.
type renderer struct {
	b    *Bridge
	chat Chat
	lim  Limits

	// own is the chat's origin: a turn another front end started shows
	// its prompt first.
	own string
	// after is closed when the chat's previous turn is shown in full
	// (nil: none), so two turns' messages never interleave.
	after <-chan struct{}

	mu       sync.Mutex
	queue    []event.Event
	notify   chan struct{}
	done     chan struct{} // closed by finish: drain and stop
	exited   chan struct{} // closed when loop has stopped
	finished chan struct{} // closed when finish has said everything

	// Owned by loop.
	msgID    string // the message being streamed into ("" before the first send)
	cur      string // its text
	sent     string // its text as last sent
	lastEdit time.Time
	parts    int             // messages this answer took
	overflow strings.Builder // what did not fit in maxParts messages
	any      bool            // something was shown
	err      error           // how the turn ended, from its result (nil: fine)

	// Owned by whoever calls finish.
	detached bool // the chat stopped following the turn before its end
}

// errStopped is a turn the user (or the bridge's shutdown) interrupted.
var errStopped = errors.New("stopped")

// errDetached is a turn the chat stopped following before it ended.
var errDetached = errors.New("detached")

func newRenderer(b *Bridge, chat Chat, own string, after <-chan struct{}) *renderer {
	lim := b.plat.Limits()
	if lim.MaxText <= 0 {
		lim.MaxText = 4000
	}
	return &renderer{b: b, chat: chat, lim: lim, own: own, after: after, notify: make(chan struct{}, 1),
		done: make(chan struct{}), exited: make(chan struct{}), finished: make(chan struct{})}
}

// push queues an event (called by the session's emitter).
func (r *renderer) push(e event.Event) {
	r.mu.Lock()
	r.queue = append(r.queue, e)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *renderer) take() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queue
	r.queue = nil
	return q
}

// loop sends what the turn shows until finish.
func (r *renderer) loop(ctx context.Context) {
	defer close(r.exited)
	// Sending outlives an interrupted turn: its last words still go out.
	ctx = context.WithoutCancel(ctx)
	if r.after != nil {
		<-r.after
	}
	var timer *time.Timer
	var tick <-chan time.Time
	for {
		select {
		case <-r.notify:
		case <-tick:
			tick = nil
		case <-r.done:
			for _, e := range r.take() {
				r.event(ctx, e)
			}
			r.flush(ctx)
			if timer != nil {
				timer.Stop()
			}
			return
		}
		for _, e := range r.take() {
			r.event(ctx, e)
		}
		if strings.TrimRight(r.cur, "\n") == r.sent || tick != nil {
			continue
		}
		if wait := r.lim.EditEvery - r.b.now().Sub(r.lastEdit); wait > 0 && r.msgID != "" {
			timer = time.NewTimer(wait)
			tick = timer.C
			continue
		}
		r.stream(ctx)
	}
}

// finishDetached ends the rendering of a turn the chat stopped following
// before its end (the bridge shut down, or the chat moved to another
// session, while the turn goes on).
func (r *renderer) finishDetached() {
	r.detached = true
	r.finish()
}

// finish ends the turn's rendering (after its done event): the last
// text, then the turn's error or the note that it stopped.
func (r *renderer) finish() {
	defer close(r.finished)
	close(r.done)
	<-r.exited
	err := r.err
	if err == nil && r.detached {
		err = errDetached
	}
	ctx := context.Background()
	r.b.dropQuestions(ctx, r.chat)
	if r.overflow.Len() > 0 {
		if e := r.b.plat.SendFile(ctx, r.chat, "answer.md", []byte(r.overflow.String()), "The rest of the answer"); e != nil {
			r.b.logf("send file: %v", e)
		}
	}
	switch {
	case errors.Is(err, errStopped):
		r.b.say(ctx, r.chat, "⏹ Stopped.")
	case errors.Is(err, errDetached):
		r.b.say(ctx, r.chat, "⏸ This chat no longer follows this turn (the bridge stopped, or the chat moved to another session); the turn goes on.")
	case err != nil:
		r.b.say(ctx, r.chat, "⚠ The turn failed: "+err.Error())
	case !r.any:
		r.b.say(ctx, r.chat, "✓ Done (no text).")
	}
}

// event shows one event.
func (r *renderer) event(ctx context.Context, e event.Event) {
	if e.ParentToolUseID != "" {
		return // a sub-agent's steps: its call's line stands for them
	}
	switch e.Type {
	case event.Status:
		if e.Subtype == event.SubtypeUserMessage {
			r.prompted(ctx, e)
		}
	case event.Result:
		r.result(e)
	case event.Text:
		r.write(ctx, e.Text)
	case event.ToolUse:
		r.line(ctx, "🔧 "+toolLine(e.ToolName, e.Input))
	case event.ToolResult:
		if e.IsError {
			r.line(ctx, "   ✗ "+firstLine(e.Output, 200))
		}
		if e.Diff != "" {
			r.flush(ctx)
			r.newMessage()
			name := "change.diff"
			if p, ok := e.Meta["file_path"].(string); ok && p != "" {
				name = path.Base(p) + ".diff"
			}
			if err := r.b.plat.SendFile(ctx, r.chat, name, []byte(e.Diff), "Diff of "+toolLine(e.ToolName, e.Input)); err != nil {
				r.b.logf("send diff: %v", err)
			}
		}
	case event.Error:
		r.line(ctx, "⚠ "+firstNonEmpty(e.Error, e.Message))
	case event.PermissionRequest:
		r.flush(ctx)
		r.newMessage()
		r.b.ask(ctx, r.chat, e)
	case event.PermissionReply:
		r.b.answered(ctx, r.chat, e)
	}
}

// prompted shows the prompt of a turn another front end started (the
// web UI, the terminal, another chat): someone following from the chat
// sees what the session is doing and can answer its questions.
func (r *renderer) prompted(ctx context.Context, e event.Event) {
	origin, _ := e.Meta["origin"].(string)
	if origin == r.own {
		return // the chat's own message
	}
	from := "the web UI or the API"
	if origin != "" {
		from = origin
	}
	r.flush(ctx)
	r.newMessage()
	text, rest := splitAt(strings.TrimSpace(e.Text), 1500)
	if rest != "" {
		text += " …"
	}
	r.b.say(ctx, r.chat, fmt.Sprintf("💬 Prompt from %s:\n%s", from, text))
}

// result notes how the turn ended, for finish.
func (r *renderer) result(e event.Event) {
	switch {
	case e.Subtype == event.SubtypeInterrupted:
		r.err = errStopped
	case e.IsError:
		r.err = errors.New(firstNonEmpty(e.Error, e.Result, e.Subtype))
	}
}

// write appends streamed text, moving to a new message when the current
// one is full.
func (r *renderer) write(ctx context.Context, s string) {
	if s == "" {
		return
	}
	r.any = true
	if r.parts >= maxParts {
		r.overflow.WriteString(s)
		return
	}
	r.cur += s
	for runeLen(r.cur) > r.lim.MaxText && r.parts < maxParts {
		head, rest := splitAt(r.cur, r.lim.MaxText)
		r.cur = head
		r.flush(ctx)
		r.newMessage()
		if r.parts >= maxParts {
			r.overflow.WriteString(rest)
			return
		}
		r.cur = rest
	}
}

// line adds a line of its own (a tool call, a warning).
func (r *renderer) line(ctx context.Context, s string) {
	if r.cur != "" && !strings.HasSuffix(r.cur, "\n") {
		s = "\n" + s
	}
	r.write(ctx, s+"\n")
}

// newMessage makes the next text go to a new message.
func (r *renderer) newMessage() {
	if r.msgID != "" {
		r.parts++
	}
	r.msgID, r.cur, r.sent = "", "", ""
}

// stream sends the current message's text as far as it is known to hold
// no secret: redacted, less the tail that may be the start of a secret
// still arriving (the redactor's overlap).
func (r *renderer) stream(ctx context.Context) {
	red := r.b.opts.Redact
	text := red.Redact(r.cur)
	if hold := red.Overlap(); hold > 0 {
		cut := len(text) - hold
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		if cut <= 0 {
			return
		}
		text = text[:cut]
	}
	r.send(ctx, text)
}

// flush sends the current message's whole text: a new message, or an
// edit.
func (r *renderer) flush(ctx context.Context) {
	r.send(ctx, r.cur)
}

func (r *renderer) send(ctx context.Context, text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" || text == r.sent {
		return
	}
	var err error
	if r.msgID == "" {
		r.msgID, err = r.b.plat.Send(ctx, r.chat, text)
	} else {
		err = r.b.plat.Edit(ctx, r.chat, r.msgID, text)
	}
	if err != nil {
		r.b.logf("stream to %s: %v", r.chat.Key(), err)
	}
	r.sent, r.lastEdit = text, r.b.now()
}

// toolLine is a call's one-line summary: the tool and its main argument.
func toolLine(name string, input json.RawMessage) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "description", "prompt"} {
		if v, ok := in[k].(string); ok && v != "" {
			return fmt.Sprintf("%s %s", name, firstLine(v, 120))
		}
	}
	return name
}

func firstLine(s string, max int) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	if runeLen(s) > max {
		s, _ = splitAt(s, max)
		cut = true
	}
	if cut {
		s += " …"
	}
	return s
}

func runeLen(s string) int { return len([]rune(s)) }

// splitAt cuts s at most max runes in, at the last line break when there
// is one in the second half.
func splitAt(s string, max int) (string, string) {
	rs := []rune(s)
	if len(rs) <= max {
		return s, ""
	}
	cut := max
	for i := max; i > max/2; i-- {
		if rs[i-1] == '\n' {
			cut = i
			break
		}
	}
	return string(rs[:cut]), string(rs[cut:])
}
