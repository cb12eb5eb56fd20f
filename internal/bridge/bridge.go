// Package bridge drives sessions from a chat app (Telegram, Slack,
// Discord, Feishu/Lark): a chat (or a thread) is bound to a session in a
// folder the bridge may use, its messages become prompts, answers stream
// back by editing one message, tool calls are summarised one line each
// (diffs as attachments), and permission questions arrive as buttons.
// It is a front end like the terminal UI and the HTTP server: sessions
// are opened through a session.Host (the server's inside `tandem serve`,
// so a chat and the web UI share one live session, its turn queue and
// its questions; a session.LocalHost over the Manager alone) and used
// through session.Live, so the same settings, trust, permission engine
// and sandbox apply. Each
// platform lives in a sub-package implementing Platform over the
// platform's own Go library.
package bridge

import (
	"context"
	"fmt"
	"log"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/session"
)

// Options configure one platform's bridge.
type Options struct {
	// Manager finds and lists sessions.
	Manager *session.Manager
	// Host opens the sessions chats use and runs their turns (nil: a
	// session.LocalHost over Manager, for `tandem bridge` alone).
	Host session.Host
	// Records keeps bindings and taken update ids (the app's store).
	Records Records
	// Allow lists the platform user ids who may prompt and answer;
	// everyone else is ignored (and logged). Empty: nobody.
	Allow []string
	// Folders are the folders (with their subfolders) a chat may bind a
	// session to; `/new DIR` and `/resume` refuse anything else. The
	// first is where a relative DIR is found.
	Folders []string
	// Model and Mode are a new session's defaults ("": the config's).
	Model, Mode string
	// Redact removes secrets from everything sent to the chat (nil: the
	// well-known credentials of this process's environment).
	Redact *secrets.Redactor
	// Log receives what the bridge reports (ignored users, reconnects,
	// failures); nil: the standard logger.
	Log *log.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Turn are the per-turn options of every turn.
	Turn session.TurnOptions
	// FlagRules are rules of the command line's kind for every session
	// (--allowedTools / --disallowedTools).
	FlagRules []permission.Rule
}

// Bridge connects one platform to tandem's sessions.
type Bridge struct {
	plat  Platform
	opts  Options
	host  session.Host
	allow map[string]bool

	mu    sync.Mutex
	chats map[string]*chatState // by Chat.Key()
	// questions are the permission questions shown, by request and chat.
	questions map[questionKey]question
	wg        sync.WaitGroup // turns being shown
	// closing is set when Run ends: no turn starts after it.
	closing bool
}

// chatState is a bound chat's session and the turn it shows.
type chatState struct {
	chat Chat
	att  session.Attachment
	bd   binding
	out  *renderer // the running turn's renderer (nil when idle)
	// rendered is closed once the last turn is shown in full.
	rendered <-chan struct{}
	// asking is the plan or questions of the running turn waiting for the
	// user (interact.go), nil when none.
	asking *interaction
}

// New returns a bridge of plat; Run connects it.
func New(plat Platform, opts Options) (*Bridge, error) {
	if opts.Manager == nil || opts.Records == nil {
		return nil, fmt.Errorf("bridge %s: a session manager and a store are needed", plat.Name())
	}
	if len(opts.Allow) == 0 {
		return nil, fmt.Errorf("bridge %s: no user is allowed: list the platform user ids who may use it in allow_users", plat.Name())
	}
	if len(opts.Folders) == 0 {
		return nil, fmt.Errorf("bridge %s: no folder to work in: list the folders its sessions may use in folders", plat.Name())
	}
	folders := make([]string, len(opts.Folders))
	for i, f := range opts.Folders {
		d, err := session.ResolveDir(f)
		if err != nil {
			return nil, fmt.Errorf("bridge %s: folder %s: %w", plat.Name(), f, err)
		}
		folders[i] = d
	}
	opts.Folders = folders
	if opts.Redact == nil {
		opts.Redact = secrets.Default().Redactor(nil)
	}
	allow := map[string]bool{}
	for _, u := range opts.Allow {
		allow[strings.TrimSpace(u)] = true
	}
	host := opts.Host
	if host == nil {
		host = session.NewLocalHost(opts.Manager)
	}
	b := &Bridge{plat: &redacting{Platform: plat, r: opts.Redact}, opts: opts, host: host, allow: allow, chats: map[string]*chatState{}}
	if l, ok := plat.(Logging); ok {
		l.SetLog(b.logf)
	}
	return b, nil
}

// SetRedactor replaces the redactor (before Run): the caller learns
// every platform's tokens only once it has made them all.
func (b *Bridge) SetRedactor(r *secrets.Redactor) {
	if r == nil {
		return
	}
	b.opts.Redact = r
	b.plat.(*redacting).r = r
}

// SetHost replaces the host sessions are opened through (before Run):
// `tandem serve` makes it once the server exists, for each bridge.
func (b *Bridge) SetHost(h session.Host) {
	if h != nil {
		b.host = h
	}
}

// Platform is the platform's name ("telegram").
func (b *Bridge) Platform() string { return b.plat.Name() }

func (b *Bridge) now() time.Time {
	if b.opts.Now != nil {
		return b.opts.Now()
	}
	return time.Now()
}

func (b *Bridge) logf(format string, args ...any) {
	msg := b.opts.Redact.Redact(fmt.Sprintf(format, args...))
	if b.opts.Log != nil {
		b.opts.Log.Printf("bridge %s: %s", b.plat.Name(), msg)
		return
	}
	log.Printf("bridge %s: %s", b.plat.Name(), msg)
}

// Run receives the platform's updates until ctx ends, reconnecting with
// backoff after a failure; then it stops the running turns, closes the
// sessions and returns.
func (b *Bridge) Run(ctx context.Context) error {
	b.pruneUpdates(ctx)
	bo := backoff{}
	for ctx.Err() == nil {
		start := b.now()
		err := b.plat.Receive(ctx, b.handle)
		if ctx.Err() != nil {
			break
		}
		if b.now().Sub(start) > time.Minute {
			bo.reset() // it was connected a while: start again from the shortest wait
		}
		wait := bo.next()
		b.logf("connection lost (%v): reconnecting in %s", err, wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
	b.shutdown()
	return nil
}

// shutdown detaches the chats from their sessions (alone, that stops
// their turns and closes the sessions; in `tandem serve` the server
// does) and waits a while for the turns being shown to be said.
func (b *Bridge) shutdown() {
	b.mu.Lock()
	b.closing = true
	var chats []*chatState
	for k, c := range b.chats {
		if c.att != nil {
			chats = append(chats, c)
		}
		delete(b.chats, k)
	}
	b.mu.Unlock()
	for _, c := range chats {
		c.att.Detach("other")
		// A turn still shown once the chat is detached goes on without
		// it (another front end, or the server, holds the session): its
		// done will not come here.
		b.mu.Lock()
		out := c.out
		c.out = nil
		b.mu.Unlock()
		b.unfollow(out)
	}
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	t := time.NewTimer(shutdownWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		b.logf("stopped with turns still running (the server goes on with them)")
	}
}

// shutdownWait bounds how long shutdown waits for the turns shown to end.
const shutdownWait = 15 * time.Second

// handle takes one update: allow-list, once only, then a press, a command
// or a prompt.
func (b *Bridge) handle(ctx context.Context, u Update) {
	// What an update starts (replies, a turn) outlives the connection
	// that brought it.
	ctx = context.WithoutCancel(ctx)
	if !b.allow[u.User] {
		b.logf("ignored an update from user %s (%s) in chat %s: not in allow_users", u.User, u.UserName, u.Chat.Key())
		return
	}
	if u.ID != "" {
		took, err := b.takeUpdate(ctx, u.ID)
		if err != nil {
			b.logf("%v", err)
			return
		}
		if !took {
			b.logf("update %s was processed before: skipped", u.ID)
			return
		}
	}
	switch {
	case u.Press != nil:
		b.press(ctx, u)
	case strings.HasPrefix(strings.TrimSpace(u.Text), "/"):
		b.command(ctx, u)
	case b.typedAnswer(ctx, u):
		// The text answered the plan or question waiting in the chat.
	default:
		b.prompt(ctx, u)
	}
}

// say sends a plain reply, logging a failure.
func (b *Bridge) say(ctx context.Context, chat Chat, text string) {
	if _, err := b.plat.Send(ctx, chat, text); err != nil {
		b.logf("send to %s: %v", chat.Key(), err)
	}
}

// allowedDir resolves dir (relative: under the first folder) and checks
// it lies within one of the bridge's folders.
func (b *Bridge) allowedDir(dir string) (string, error) {
	if dir == "" {
		dir = b.opts.Folders[0]
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(b.opts.Folders[0], dir)
	}
	d, err := session.ResolveDir(dir)
	if err != nil {
		return "", err
	}
	if !b.inFolders(d) {
		return "", fmt.Errorf("%s is not among the folders this bridge may use (%s)", d, strings.Join(b.opts.Folders, ", "))
	}
	return d, nil
}

func (b *Bridge) inFolders(d string) bool {
	for _, f := range b.opts.Folders {
		if rel, err := filepath.Rel(f, d); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}
