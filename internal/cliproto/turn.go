package cliproto

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
)

// userInput is one user message: text and images.
type userInput struct {
	text   string
	images []message.Block
	uuid   string // the host's id for the message (rewind_files names it)
	failed error  // the input could not be read: an error result, no turn
}

// turnStats are the figures a result reports beyond tandem's own.
type turnStats struct {
	mu        sync.Mutex
	start     time.Time
	stepStart time.Time
	apiTime   time.Duration
	cost      float64
}

func (s *turnStats) assistant(m message.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiTime += time.Since(s.stepStart)
	if m.CostUSD != nil {
		s.cost += *m.CostUSD
	}
}

func (s *turnStats) toolResults() {
	s.mu.Lock()
	s.stepStart = time.Now()
	s.mu.Unlock()
}

// textPrompt is the prompt of a --print run: the arguments, else stdin.
func (d *driver) textPrompt() (string, error) {
	p := strings.TrimSpace(strings.Join(d.f.Prompt, " "))
	if p == "" && d.o.Stdin != nil {
		b, err := io.ReadAll(d.o.Stdin)
		if err != nil {
			return "", fmt.Errorf("read the prompt from stdin: %w", err)
		}
		p = strings.TrimSpace(string(b))
	}
	if p == "" {
		return "", fmt.Errorf("no prompt: give it as an argument, on stdin, or use --input-format stream-json")
	}
	return p, nil
}

// runTurn runs one user message to its result and returns the exit status
// a --print run would have.
func (d *driver) runTurn(ctx context.Context, in userInput) int {
	live, err := d.session(ctx)
	if err != nil {
		fmt.Fprintln(d.o.Stderr, "tandem:", err)
		if d.f.OutputFormat != "text" {
			d.w.line(errorResult(d.sessionID(), err.Error()))
		}
		return 1
	}
	if d.f.OutputFormat == "stream-json" {
		d.w.line(d.initLine(live))
	}
	tctx, cancel := context.WithCancel(ctx)
	now := time.Now()
	stats := &turnStats{start: now, stepStart: now}
	d.mu.Lock()
	d.cancelTurn, d.interrupted, d.turn, d.turnUUID = cancel, false, stats, in.uuid
	system, appendSys, thinking := d.systemInit, d.appendInit, d.thinking
	d.mu.Unlock()
	if system == nil {
		system = d.f.SystemPrompt
	}
	opts := session.TurnOptions{MaxTurns: d.f.MaxTurns, MaxBudgetUSD: d.f.MaxBudgetUSD, AppendSystemPrompt: joinNonEmpty(d.f.AppendSystemPrompt, appendSys),
		DisallowedTools: d.disallowedTools(live), Images: in.images, FallbackModels: d.f.FallbackModels,
		ThinkingBudget: thinking, Effort: d.f.Effort}
	if d.f.JSONSchema != "" {
		opts.JSONSchema = json.RawMessage(d.f.JSONSchema)
	}
	if system != nil && *system != "" {
		opts.SystemPrompt = *system
	}
	res, runErr := live.Run(tctx, in.text, opts)
	cancel()
	d.mu.Lock()
	d.cancelTurn, d.turn = nil, nil
	interrupted := d.interrupted
	d.mu.Unlock()

	line := d.resultLine(live, res, runErr, stats, interrupted)
	switch d.f.OutputFormat {
	case "text":
		if runErr != nil || res.IsError {
			fmt.Fprintln(d.o.Stderr, "tandem:", strings.Join(line["errors"].([]string), "; "))
		} else {
			fmt.Fprintln(d.o.Stdout, res.Result)
		}
	default:
		d.w.line(line)
	}
	if line["is_error"] == true {
		return 1
	}
	return 0
}

// disallowedTools are the tools --disallowedTools names outright, plus
// those --tools leaves out ("" means none, "default" every built-in).
func (d *driver) disallowedTools(live *session.Live) []string {
	var out []string
	for _, t := range splitTools(d.f.DisallowedTools) {
		if !strings.Contains(t, "(") {
			out = append(out, t)
		}
	}
	if d.f.Tools == nil || *d.f.Tools == "default" {
		return out
	}
	keep := map[string]bool{}
	for _, t := range splitTools([]string{*d.f.Tools}) {
		keep[t] = true
	}
	for _, name := range live.Tools().Names() {
		if !keep[name] && !strings.HasPrefix(name, "mcp__") {
			out = append(out, name)
		}
	}
	return out
}

// onEvent turns tandem events that Claude Code also reports into its lines.
func (d *driver) onEvent(e event.Event) {
	if e.Type == event.Status && e.Meta["notice"] == app.NoticeUntrusted {
		// Said once as the session starts: on stderr always, and as a
		// system warning in stream-json.
		fmt.Fprintln(d.o.Stderr, "tandem: warning:", e.Message)
		if d.f.OutputFormat == "stream-json" {
			d.w.line(map[string]any{"type": "system", "subtype": "warning", "message": e.Message, "left_out": e.Meta["left_out"],
				"session_id": e.SessionID, "uuid": newUUID()})
		}
		return
	}
	if d.f.OutputFormat != "stream-json" {
		return
	}
	if e.Type == event.RewindPoint {
		d.mu.Lock()
		if d.turnUUID != "" {
			d.checkpoints[d.turnUUID] = e.Checkpoint
		}
		d.mu.Unlock()
	}
	switch e.Type {
	case event.Text, event.Thinking, event.ToolUse:
		if d.f.IncludePartialMessages {
			d.pt.onEvent(e)
		}
	case event.Retry:
		status := any(nil)
		if e.HTTPStatus != 0 {
			status = e.HTTPStatus
		}
		line := map[string]any{"type": "system", "subtype": "api_retry", "attempt": e.Attempt, "retry_delay_ms": e.DelayMS,
			"error_status": status, "error": e.Error, "session_id": e.SessionID, "uuid": newUUID()}
		if e.Model != "" {
			line["fallback_model"] = e.Model // tandem's: the model that answers from now on
		}
		d.w.line(line)
	case event.CompactBoundary:
		meta := map[string]any{"trigger": e.Trigger, "pre_tokens": e.TokensBefore}
		if e.TokensAfter > 0 {
			meta["post_tokens"] = e.TokensAfter
		}
		d.w.line(map[string]any{"type": "system", "subtype": "compact_boundary", "compact_metadata": meta,
			"session_id": e.SessionID, "uuid": newUUID()})
	}
}

// onMessage prints each stored message as Claude Code's assistant and user
// lines, and keeps the figures of the result.
func (d *driver) onMessage(m message.Message) {
	d.mu.Lock()
	stats := d.turn
	d.mu.Unlock()
	sid := d.sessionID()
	switch m.Role {
	case message.Assistant:
		if stats != nil {
			stats.assistant(m)
		}
		if d.f.OutputFormat == "stream-json" {
			if d.f.IncludePartialMessages {
				d.pt.onAssistant(m)
			}
			d.w.line(assistantLine(m, sid, d.modelID()))
		}
	case message.User:
		if stats != nil {
			stats.toolResults()
		}
		if d.f.OutputFormat == "stream-json" {
			if l, ok := userLine(m, sid); ok {
				d.w.line(l)
			}
		}
	}
}

func joinNonEmpty(ss ...string) string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n\n")
}
