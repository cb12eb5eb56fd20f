package bridge

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/attach"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// errStopped is a turn the user (or the bridge's shutdown) interrupted.
var errStopped = errors.New("stopped")

// maxTextFile is the largest text file a chat message may attach inline.
const maxTextFile = 256 << 10

// prompt runs the user's message as a turn of the chat's session; the
// turn runs on while the connection takes further updates (a press
// answering its question, /stop).
func (b *Bridge) prompt(ctx context.Context, u Update) {
	c := b.state(u.Chat)
	b.mu.Lock()
	busy := c.out != nil
	if busy {
		c.queued = append(c.queued, u)
	}
	b.mu.Unlock()
	if busy {
		b.say(ctx, u.Chat, "⏳ Queued: it runs when the current turn ends (/stop ends that one and drops the queue).")
		return
	}
	b.start(ctx, c, u)
}

// start runs u as a turn of the chat's session, then the prompts queued
// meanwhile, one after the other.
func (b *Bridge) start(ctx context.Context, c *chatState, u Update) {
	live, err := b.live(ctx, c)
	if err != nil {
		b.say(ctx, u.Chat, "⚠ "+err.Error())
		return
	}
	if live == nil {
		b.say(ctx, u.Chat, "This chat has no session yet: /new DIR starts one (DIR among "+strings.Join(b.opts.Folders, ", ")+"), /sessions lists those you can /resume.")
		return
	}
	text, images, err := b.attachments(ctx, u)
	if err != nil {
		b.say(ctx, u.Chat, "⚠ "+err.Error())
		return
	}
	if strings.TrimSpace(text) == "" && len(images) == 0 {
		return
	}
	opts := b.opts.Turn
	opts.Images = append(append([]message.Block(nil), opts.Images...), images...)

	// The turn outlives the update's context (a webhook request, one
	// poll); Run's context ends it.
	base := context.WithoutCancel(ctx)
	turnCtx, stop := context.WithCancel(base)
	out := newRenderer(b, u.Chat)
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		stop()
		return
	}
	c.out, c.stop = out, stop
	b.wg.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.wg.Done()
		defer stop()
		go out.loop(turnCtx)
		res, err := live.Run(turnCtx, text, opts)
		if res.Subtype == event.SubtypeInterrupted || (err != nil && turnCtx.Err() != nil) {
			err = errStopped
		} else if err == nil && res.IsError {
			msg := res.Error
			if msg == "" {
				msg = res.Result
			}
			err = fmt.Errorf("%s", firstNonEmpty(msg, res.Subtype))
		}
		out.finish(err)
		b.mu.Lock()
		c.out, c.stop = nil, nil
		var next *Update
		if len(c.queued) > 0 && !b.closing {
			next = &c.queued[0]
			c.queued = c.queued[1:]
		}
		b.mu.Unlock()
		if next != nil {
			b.start(base, c, *next)
		}
	}()
}

// attachments turns the files of a message into the prompt's images and
// inline text files.
func (b *Bridge) attachments(ctx context.Context, u Update) (string, []message.Block, error) {
	text := u.Text
	var images []message.Block
	for _, f := range u.Files {
		if f.Fetch == nil {
			continue
		}
		data, err := f.Fetch(ctx, attach.MaxBytes+1)
		if err != nil {
			return "", nil, fmt.Errorf("download %s: %w", f.Name, err)
		}
		if isImage(f, data) {
			if len(images) >= attach.MaxImages {
				return "", nil, fmt.Errorf("more than %d images in one message: send fewer", attach.MaxImages)
			}
			blk, err := attach.Base64("", base64.StdEncoding.EncodeToString(data))
			if err != nil {
				return "", nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			images = append(images, blk)
			continue
		}
		if len(data) > maxTextFile || !utf8.Valid(data) || strings.ContainsRune(string(data), 0) {
			return "", nil, errors.New(f.Name + " is neither an image (PNG, JPEG, GIF, WebP) nor a text file up to 256 KiB: send it as one of those")
		}
		text += fmt.Sprintf("\n\nAttached file %s:\n```\n%s\n```", f.Name, strings.TrimRight(string(data), "\n"))
	}
	return text, images, nil
}

func isImage(f File, data []byte) bool {
	if strings.HasPrefix(f.MediaType, "image/") {
		return true
	}
	return strings.HasPrefix(http.DetectContentType(data), "image/")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// stopTurn interrupts the chat's running turn; false when none runs.
func (b *Bridge) stopTurn(c *chatState) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.stop == nil {
		return false
	}
	c.queued = nil
	c.stop()
	return true
}
