package bridge

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/attach"
	"github.com/tandem-agent/tandem/internal/message"
)

// maxTextFile is the largest text file a chat message may attach inline.
const maxTextFile = 256 << 10

// prompt sends the user's message to the chat's session as a turn: it
// runs now, or after the turns before it, whoever sent them; its events
// come back through deliver like any turn's.
func (b *Bridge) prompt(ctx context.Context, u Update) {
	c := b.state(u.Chat)
	att, err := b.attached(ctx, c)
	if err != nil {
		b.say(ctx, u.Chat, "⚠ "+err.Error())
		return
	}
	if att == nil {
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
	opts.Origin = b.origin(u.Chat)
	b.mu.Lock()
	closing := b.closing
	b.mu.Unlock()
	if closing {
		return
	}
	queued, err := att.Prompt(ctx, text, opts)
	switch {
	case err != nil:
		b.say(ctx, u.Chat, "⚠ "+err.Error())
	case queued:
		b.say(ctx, u.Chat, "⏳ Queued: it runs when the current turn ends (/stop ends that one and drops the queue).")
	}
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
		fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
		data, err := f.Fetch(fctx, attach.MaxBytes+1)
		cancel()
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

// fetchTimeout bounds the download of one file a user sent: a chat's
// updates are taken one at a time, so a download that stalls would hold
// up every later one, /stop included.
const fetchTimeout = time.Minute

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

// stopTurn interrupts the session's running turn, whoever started it,
// and drops the queued ones; false when none runs.
func (b *Bridge) stopTurn(ctx context.Context, c *chatState) bool {
	b.mu.Lock()
	att := c.att
	b.mu.Unlock()
	return att != nil && att.Interrupt(ctx)
}
