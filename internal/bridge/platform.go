package bridge

import (
	"context"
	"time"
)

// Platform is one chat service as the bridge sees it: a stream of updates
// and a few ways to answer. Each platform package (telegram, slack, ...)
// implements it over the service's well-kept Go library; nothing of a
// platform's wire format reaches the bridge's core.
type Platform interface {
	// Name is the platform's name in config, logs and the store
	// ("telegram").
	Name() string
	// Limits are the platform's message size and rate limits.
	Limits() Limits
	// Receive delivers updates to handle until ctx ends or the connection
	// fails; it returns the failure (nil when ctx ended), and the bridge
	// calls it again after a backoff. handle returns once the update is
	// taken (a turn it starts runs on), so a slow turn never stalls the
	// connection.
	Receive(ctx context.Context, handle func(context.Context, Update)) error
	// Send posts text to the chat and returns the new message's id.
	Send(ctx context.Context, chat Chat, text string) (string, error)
	// Edit replaces the text of a message the bridge sent (and removes
	// its buttons).
	Edit(ctx context.Context, chat Chat, messageID, text string) error
	// SendFile posts a file with a caption.
	SendFile(ctx context.Context, chat Chat, name string, data []byte, caption string) error
	// SendButtons posts text with one row of buttons; a press comes back
	// as an Update with Press set to the button's Data.
	SendButtons(ctx context.Context, chat Chat, text string, buttons []Button) (string, error)
	// AnswerPress acknowledges a button press with a short notice the
	// presser sees ("" acknowledges silently).
	AnswerPress(ctx context.Context, p Press, notice string) error
}

// A Logging platform (one over an SDK that logs on its own) is handed the
// bridge's log by New, so what it logs is redacted and goes where the
// bridge's own lines go rather than to the SDK's default output.
type Logging interface {
	SetLog(logf func(format string, args ...any))
}

// Limits are what a platform allows.
type Limits struct {
	// MaxText is the longest message text, in characters (runes).
	MaxText int
	// EditEvery is the least time between two edits of one message, so
	// streamed text stays within the platform's rate limit.
	EditEvery time.Duration
}

// Chat names a conversation: the platform's chat (channel) id and, for a
// thread in it, the thread's id.
type Chat struct {
	ID     string
	Thread string
}

// Key is the chat as stored in a binding: "ID" or "ID/Thread".
func (c Chat) Key() string {
	if c.Thread == "" {
		return c.ID
	}
	return c.ID + "/" + c.Thread
}

// Update is one thing a platform delivered: a message or a button press.
type Update struct {
	// ID is the platform's stable id of the update (Telegram's
	// update_id, Slack's envelope/event id, Discord's message or
	// interaction id): taken once, never processed twice.
	ID   string
	Chat Chat
	// User is the sender's platform user id (what allow-lists name);
	// UserName is for logs.
	User, UserName string
	Text           string
	Files          []File
	// Press is set when the update is a button press.
	Press *Press
}

// File is something the user sent with a message.
type File struct {
	Name      string
	MediaType string // "" when the platform does not say
	Size      int64  // 0 when unknown
	// Fetch downloads the file's bytes (at most limit of them).
	Fetch func(ctx context.Context, limit int64) ([]byte, error)
}

// Button is one choice of a SendButtons message.
type Button struct {
	Label string
	Data  string // what a press delivers back (at most 64 bytes)
}

// Press is a button press.
type Press struct {
	// ID is the platform's id for answering the press (Telegram's
	// callback query id, Discord's interaction id and token).
	ID        string
	Data      string
	MessageID string // the message the button belongs to
}
