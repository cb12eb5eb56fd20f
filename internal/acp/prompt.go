package acp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
)

// Prompt runs one turn. Updates stream as session/update notifications
// while it runs; the answer carries the stop reason and the turn's usage.
func (ag *Agent) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	s, err := ag.lookup(p.SessionId)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	text, images, err := promptContent(p.Prompt, ag.spool())
	if err != nil {
		return acpsdk.PromptResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if s.turns.firstTurn() {
		// Give the session's MCP servers (the client's among them) a moment
		// to connect, so their tools are offered from the start.
		s.live.WaitMCP(ctx, app.DefaultMCPWait)
	}
	if notice := s.turns.takeNotice(); notice != "" {
		_ = ag.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: p.SessionId, Update: acpsdk.UpdateAgentMessageText(notice)})
	}
	s.turns.setCancel(cancel)
	defer s.turns.setCancel(nil)
	res, err := s.live.Run(ctx, text, session.TurnOptions{Images: images})
	if err != nil {
		if ctx.Err() != nil {
			return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
		}
		return acpsdk.PromptResponse{}, &acpsdk.RequestError{Code: -32603, Message: err.Error()}
	}
	out := acpsdk.PromptResponse{Usage: usage(res.Usage)}
	switch res.Subtype {
	case event.SubtypeInterrupted:
		out.StopReason = acpsdk.StopReasonCancelled
	case event.SubtypeMaxTurns:
		out.StopReason = acpsdk.StopReasonMaxTurnRequests
	default:
		if res.IsError {
			// The client shows a failed prompt as an error, with tandem's
			// explanation (which names the fix) as its message.
			return acpsdk.PromptResponse{}, &acpsdk.RequestError{Code: -32603, Message: cmp.Or(res.Error, res.Result, "the turn failed"),
				Data: map[string]any{"subtype": res.Subtype}}
		}
		out.StopReason = acpsdk.StopReasonEndTurn
	}
	return out, nil
}

// Cancel stops the session's running turn. The SDK has already cancelled
// the prompt's context; a running tool is killed and the turn is stored.
func (ag *Agent) Cancel(ctx context.Context, p acpsdk.CancelNotification) error {
	if s, err := ag.lookup(p.SessionId); err == nil {
		s.turns.cancelRunning()
	}
	return nil
}

// promptContent turns ACP content blocks into tandem's prompt text and
// images. Resource links and embedded resources become references the
// model can read, as an editor's @-mention means. A long text or image
// the frame filter set aside is taken back from the spool.
func promptContent(blocks []acpsdk.ContentBlock, sp *spool) (string, []message.Block, error) {
	var parts []string
	var images []message.Block
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, sp.take(b.Text.Text))
		case b.Image != nil:
			if b.Image.Data == "" {
				return "", nil, fmt.Errorf("prompt[%d]: an image needs its data (base64); tandem does not fetch image URIs", i)
			}
			images = append(images, message.Block{Type: message.Image, MediaType: b.Image.MimeType, ImageData: sp.take(b.Image.Data)})
		case b.ResourceLink != nil:
			parts = append(parts, fmt.Sprintf("[@%s](%s)", linkName(b.ResourceLink), b.ResourceLink.Uri))
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				parts = append(parts, fmt.Sprintf("<context ref=%q>\n%s\n</context>", r.TextResourceContents.Uri, sp.take(r.TextResourceContents.Text)))
			case r.BlobResourceContents != nil:
				parts = append(parts, fmt.Sprintf("[@%s](%s)", pathOf(r.BlobResourceContents.Uri), r.BlobResourceContents.Uri))
			}
		case b.Audio != nil:
			return "", nil, fmt.Errorf("prompt[%d]: tandem does not take audio (its promptCapabilities say so)", i)
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n"))
	if text == "" && len(images) == 0 {
		return "", nil, fmt.Errorf("the prompt is empty: send at least one text block")
	}
	return text, images, nil
}

func linkName(l *acpsdk.ContentBlockResourceLink) string {
	if p := pathOf(l.Uri); p != l.Uri {
		return p
	}
	return l.Name
}

// pathOf is the file path of a file:// URI, else the URI.
func pathOf(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return uri
}

func usage(u *message.Usage) *acpsdk.Usage {
	if u == nil {
		return nil
	}
	in := int(u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens)
	out := &acpsdk.Usage{InputTokens: in, OutputTokens: int(u.OutputTokens), TotalTokens: in + int(u.OutputTokens)}
	if u.CacheReadTokens > 0 {
		out.CachedReadTokens = acpsdk.Ptr(int(u.CacheReadTokens))
	}
	if u.CacheCreationTokens > 0 {
		out.CachedWriteTokens = acpsdk.Ptr(int(u.CacheCreationTokens))
	}
	if u.ReasoningTokens > 0 {
		out.ThoughtTokens = acpsdk.Ptr(int(u.ReasoningTokens))
	}
	return out
}

// turnState is what a session's updater remembers across events: the
// tool calls in flight (for titles, diffs and output tails) and how to
// cancel the running turn.
type turnState struct {
	// tools are tandem's built-in tools, for what each says of its calls
	// (kind, title, paths, text changes).
	tools  tool.Lookup
	mu     sync.Mutex
	calls  map[string]*toolCall
	cancel context.CancelFunc
	turns  int
	notice string // said with the next prompt
}

// holdNotice keeps a notice for the session's next prompt.
func (t *turnState) holdNotice(text string) {
	t.mu.Lock()
	t.notice += text
	t.mu.Unlock()
}

// takeNotice returns the held notice, once.
func (t *turnState) takeNotice() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.notice
	t.notice = ""
	return n
}

// firstTurn reports whether no turn has started in this process yet.
func (t *turnState) firstTurn() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.turns++
	return t.turns == 1
}

type toolCall struct {
	name  string
	input json.RawMessage
	tail  []byte // the last outputTail bytes of streamed output
	// terminal is the client terminal the call's command runs in; its
	// content is that terminal, not text.
	terminal string
}

func newTurnState() *turnState {
	return &turnState{calls: map[string]*toolCall{}, tools: tools.Lookup()}
}

// setTerminal records that a call runs in a client terminal.
func (t *turnState) setTerminal(toolUseID, terminalID string) {
	t.mu.Lock()
	if c := t.calls[toolUseID]; c != nil {
		c.terminal = terminalID
	}
	t.mu.Unlock()
}

func (t *turnState) setCancel(c context.CancelFunc) {
	t.mu.Lock()
	t.cancel = c
	t.mu.Unlock()
}

func (t *turnState) cancelRunning() {
	t.mu.Lock()
	c := t.cancel
	t.mu.Unlock()
	if c != nil {
		c()
	}
}
