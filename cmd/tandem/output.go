package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

// printer renders a turn's events in the chosen output format.
type printer struct {
	format   string
	out, err io.Writer
	verbose  bool
	mu       sync.Mutex
	w        *bufio.Writer
	lastText bool // the last thing written to out was streamed text
	gotText  bool
	// shown is the text printed for the current message (msgID); after a
	// retry, replay holds it so the repeated stream is not printed twice.
	msgID, shown, replay string
	// safeOut and safeErr escape control characters in what goes to a
	// terminal (model text, tool input and output, errors).
	safeOut, safeErr func(string) string
}

func newPrinter(format string, out, errw io.Writer, verbose bool) *printer {
	return &printer{format: format, out: out, err: errw, verbose: verbose, w: bufio.NewWriterSize(out, 32<<10),
		safeOut: termsafe.For(out), safeErr: termsafe.For(errw)}
}

// errf prints a line to stderr with its text made safe for a terminal.
func (p *printer) errf(format string, args ...any) {
	io.WriteString(p.err, p.safeErr(fmt.Sprintf(format, args...)))
}

// Emit implements event.Sink.
func (p *printer) Emit(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Type == event.Status && e.Meta["notice"] == app.NoticeUntrusted {
		// In every format: the run goes on without some project settings.
		p.errf("tandem: %s\n", e.Message)
	}
	switch p.format {
	case "stream-json":
		writeJSONLine(p.w, e)
		// Flush per event so a consumer sees each one as it happens.
		p.w.Flush()
	case "text":
		p.text(e)
	}
}

func (p *printer) text(e event.Event) {
	if e.ParentToolUseID != "" {
		// A sub-agent's work: its report comes back as the Agent call's
		// result, so only verbose mode shows the steps, indented.
		if p.verbose && e.Type == event.ToolUse {
			fmt.Fprintf(p.err, "  ● (sub-agent) %s %s\n", e.ToolName, compact(e.Input, 200))
		}
		return
	}
	switch e.Type {
	case event.Text:
		p.streamText(e)
	case event.ToolUse:
		if p.lastText {
			p.w.WriteString("\n")
			p.w.Flush()
			p.lastText = false
		}
		if p.verbose {
			p.errf("● %s %s\n", e.ToolName, compact(e.Input, 200))
		}
	case event.ToolResult:
		if p.verbose {
			status := "ok"
			if e.IsError {
				status = "error"
			}
			p.errf("  ⎿ %s: %s\n", status, firstLine(e.Output, 200))
		}
	case event.Retry:
		if e.MessageID == p.msgID {
			p.replay, p.shown = p.shown, ""
		}
		p.errf("tandem: provider error (%s); retry %d in %dms\n", e.Error, e.Attempt, e.DelayMS)
	case event.Error:
		if p.verbose {
			p.errf("tandem: %s\n", e.Error)
		}
	case event.PermissionRequest:
		// The terminal asker prints the question itself.
	case event.Status:
		if p.verbose && e.Message != "" && e.Meta["notice"] != app.NoticeUntrusted {
			p.errf("tandem: %s\n", e.Message)
		}
	case event.SandboxDenial:
		// What the sandbox refused and the allowance that would permit it.
		p.errf("tandem: %s\n", strings.TrimSpace(e.Message))
	case event.CompactBoundary:
		fmt.Fprintf(p.err, "tandem: conversation compacted (%s): about %d tokens → %d\n", e.Trigger, e.TokensBefore, e.TokensAfter)
	}
}

// streamText prints a text delta. A retried call streams its message again
// from the start (docs/events.md): text already on screen is not repeated,
// and an answer that turns out different starts on a new line.
func (p *printer) streamText(e event.Event) {
	if e.MessageID != p.msgID {
		p.msgID, p.shown, p.replay = e.MessageID, "", ""
	}
	text := e.Text
	if p.replay != "" {
		switch {
		case strings.HasPrefix(p.replay, text):
			p.replay = p.replay[len(text):]
			p.shown += text
			return
		case strings.HasPrefix(text, p.replay):
			p.shown += p.replay
			text = text[len(p.replay):]
		default:
			// The new answer differs: restart it, with the part that matched.
			p.w.WriteString("\n" + p.safeOut(p.shown))
		}
		p.replay = ""
	}
	p.shown += text
	p.w.WriteString(p.safeOut(text))
	p.w.Flush()
	p.lastText, p.gotText = true, true
}

// finish prints what belongs after the turn: the result object (json), or
// a final newline and any error (text).
func (p *printer) finish(res event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.format {
	case "json", "stream-json":
		if p.format == "json" {
			writeJSONLine(p.w, res)
		}
		// stdout belongs to the JSON consumer; a person or a log watching
		// stderr must still learn why the turn failed.
		if res.IsError {
			p.errf("%s\n", failureLine(res))
		}
	case "text":
		if !p.gotText && res.Result != "" {
			p.w.WriteString(p.safeOut(res.Result))
			p.lastText = true
		}
		if p.lastText {
			p.w.WriteString("\n")
		}
		p.w.Flush() // stdout before the stderr lines below, for a shared terminal
		if res.IsError {
			p.errf("%s\n", failureLine(res))
		}
		// A person reading text output learns what was refused and how to
		// allow it, as json consumers do from permission_denials.
		for _, d := range res.PermissionDenials {
			p.errf("tandem: denied %s %s: %s\n", d.ToolName, compact(d.ToolInput, 120), firstLine(d.Reason, 300))
		}
		if p.verbose {
			cost := "unknown"
			if res.CostUSD != nil {
				cost = fmt.Sprintf("$%.4f", *res.CostUSD)
			}
			fmt.Fprintf(p.err, "tandem: %d steps, %d in / %d out tokens, cost %s, %dms, session %s\n",
				res.NumTurns, res.Usage.InputTokens, res.Usage.OutputTokens, cost, res.DurationMS, res.SessionID)
		}
	}
	p.w.Flush()
}

// failureLine is the stderr line for a turn that ended in error.
func failureLine(res event.Event) string {
	if res.Error == "" || res.Error == res.Subtype {
		return "tandem: " + res.Subtype
	}
	return fmt.Sprintf("tandem: %s: %s", res.Subtype, res.Error)
}

func writeJSONLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"type":"error","error":%q}`, err.Error()))
	}
	w.Write(append(b, '\n'))
}

func compact(raw json.RawMessage, n int) string {
	return truncate(strings.Join(strings.Fields(string(raw)), " "), n)
}

func firstLine(s string, n int) string {
	line, _, _ := strings.Cut(s, "\n")
	return truncate(line, n)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
