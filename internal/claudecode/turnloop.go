package claudecode

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Grace periods for ending the process.
const (
	initTimeout      = 60 * time.Second
	shutdownGrace    = 5 * time.Second
	interruptGrace   = 10 * time.Second
	missingSessionRe = "No conversation found"
)

// turnRun is one RunTurn; attempt may run twice (missing session).
type turnRun struct {
	rt    *Runtime
	cli   CLIInfo
	in    turn.Input
	d     turn.Deps
	start time.Time
}

// outcome is how one CLI process ended.
type outcome struct {
	result         event.Event
	missingSession bool
	recordErr      error
}

// loop is the state of one attempt's main loop.
type loop struct {
	t         *turnRun
	p         *proc
	c         *controller
	mapper    *Mapper
	usage     message.Usage // sum over recorded assistant messages (for synthetic results)
	firstByte *time.Timer
	fbArmed   bool
	recordErr error
	// children are the sub-agents' child sessions, by Agent call id.
	children map[string]turn.Recorder
	// tasks are the CLI's background tasks still running (tasks.go).
	tasks map[string]*tool.TaskHandle
}

func (t *turnRun) attempt(ctx context.Context, at launch) outcome {
	cfg, opts := t.rt.cfg, t.rt.opts
	args := buildArgs(cfg, opts, t.in, at)
	p, err := startProc(t.cli.Path, args, childEnv(osEnviron(), cfg, opts), t.in.Cwd, t.rt.logf, opts.Confine)
	if err != nil {
		return outcome{result: errorResult(event.SubtypeError, err.Error())}
	}
	// The controller's context ends with the turn so that a Checker still
	// asking the user gives up when the turn is over.
	turnCtx, cancelTurn := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelTurn()
	c := newController(p, t.d.Checker, t.d.Tools, t.in.SessionID, t.in.Cwd, t.rt.logf)
	c.base = turnCtx
	c.observer = opts.Observer
	c.hooks = opts.Hooks
	t.rt.setActive(t.in.SessionID, c)
	defer t.rt.setActive(t.in.SessionID, nil)

	msgs := make(chan Msg, 64)
	go func() {
		defer close(msgs)
		for m := range p.lines {
			if !c.handle(m) {
				msgs <- m
			}
		}
	}()
	initDone := make(chan error, 1)
	go func() {
		ictx, cancel := context.WithTimeout(turnCtx, initTimeout)
		defer cancel()
		if _, err := c.request(ictx, initializeRequest(opts.Observer != nil, opts.Agents, opts.Hooks)); err != nil {
			initDone <- fmt.Errorf("initialize: %w", err)
			return
		}
		initDone <- p.send(userMessage(t.in))
	}()

	l := &loop{t: t, p: p, c: c, mapper: &Mapper{Mode: string(t.in.Mode), Provider: providerName(opts)}}
	defer l.endTasks()
	out := l.run(ctx, msgs, initDone)
	cancelTurn()
	c.cancelAll(errors.New("the turn is over"))
	if out.recordErr == nil {
		out.recordErr = l.recordErr
	}
	// Drain so the router goroutine ends.
	go func() {
		for range msgs {
		}
	}()
	return out
}

func providerName(o Options) string {
	if o.ProviderName != "" {
		return o.ProviderName
	}
	return "anthropic"
}

func (l *loop) run(ctx context.Context, msgs <-chan Msg, initDone <-chan error) outcome {
	cfg := l.t.rt.cfg
	hard := time.NewTimer(cfg.turnTimeout())
	defer hard.Stop()
	l.firstByte = time.NewTimer(cfg.firstByteTimeout())
	defer l.firstByte.Stop()
	l.fbArmed = false
	l.firstByte.Stop()
	done := ctx.Done()
	var interruptDeadline <-chan time.Time
	interrupted := false
	for {
		select {
		case err := <-initDone:
			initDone = nil
			if err != nil {
				l.p.kill()
				return outcome{result: l.synthetic(event.SubtypeError, l.crashOr("claude did not start: "+err.Error()))}
			}
			l.arm()
		case m, ok := <-msgs:
			if !ok {
				return l.ended(interrupted)
			}
			if out, stop := l.onMessage(m, interrupted); stop {
				return out
			}
		case <-l.firstByte.C:
			l.p.kill()
			return outcome{result: l.synthetic(event.SubtypeError, fmt.Sprintf(
				"first-byte timeout: the model sent nothing for %s (claude_code.first_byte_timeout); the claude process was stopped", cfg.firstByteTimeout()))}
		case <-hard.C:
			l.p.kill()
			return outcome{result: l.synthetic(event.SubtypeError, fmt.Sprintf(
				"turn timeout: the turn ran longer than %s (claude_code.turn_timeout); the claude process was stopped", cfg.turnTimeout()))}
		case <-done:
			done = nil
			interrupted = true
			l.disarm()
			l.t.rt.logf("claude-code: interrupting")
			l.c.cancelAll(errors.New("interrupted by the user"))
			l.interrupt()
			interruptDeadline = time.After(interruptGrace)
		case <-interruptDeadline:
			l.p.kill()
			return outcome{result: l.synthetic(event.SubtypeInterrupted, "interrupted")}
		}
	}
}

// interrupt asks the CLI to stop; the result that follows ends the loop.
func (l *loop) interrupt() {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
		defer cancel()
		if _, err := l.c.request(ctx, map[string]any{"subtype": "interrupt"}); err != nil {
			l.t.rt.logf("claude-code: interrupt: " + err.Error())
			l.p.closeStdin()
		}
	}()
}

// onMessage handles one non-control message; stop is true when the turn
// is over.
func (l *loop) onMessage(m Msg, interrupted bool) (outcome, bool) {
	switch m.Type {
	case "system":
		switch m.Subtype {
		case "init":
			l.t.rt.noteMCP(l.t.in.SessionID, m.MCPServers)
			l.record(func(ctx context.Context) error {
				return l.t.d.Recorder.SetMeta(ctx, MetaSessionID, m.SessionID)
			})
		case "api_retry":
			l.disarm()
			if m.ErrorStatus != nil && *m.ErrorStatus == 401 {
				// Claude Code retries a 401 for minutes; the user needs the
				// hint now.
				l.p.kill()
				return outcome{result: l.synthetic(event.SubtypeProviderError, l.t.rt.authHint(401))}, true
			}
			l.arm()
		case "status":
			if m.Status == "requesting" {
				l.arm()
			}
		}
	case "stream_event", "assistant":
		l.disarm()
		l.noteUUID(m)
	case "user":
		l.arm()
		l.noteUUID(m)
	case "result":
		l.disarm()
		if !interrupted && isMissingSession(m) {
			l.p.shutdown(shutdownGrace)
			return outcome{missingSession: true}, true
		}
	default:
		if !knownType(m.Type) {
			l.t.rt.logf("claude-code: ignoring message type " + m.Type)
		}
	}
	l.noteTask(m)
	evs := l.mapper.Map(m)
	l.store()
	for _, e := range evs {
		if e.Type == event.Result {
			e = l.finishResult(m, e, interrupted)
			l.p.shutdown(shutdownGrace)
			return outcome{result: e}, true
		}
		emit(l.t.d, e)
		if e.Type == event.ToolResult && l.t.rt.opts.Denials != nil {
			for _, d := range l.t.rt.opts.Denials(e.Output, l.t.in.Cwd) {
				d.ToolUseID = e.ToolUseID
				emit(l.t.d, d)
			}
		}
	}
	return outcome{}, false
}

// noteUUID keeps the uuid of the last main-chain transcript entry, where a
// rewind to the next prompt resumes.
func (l *loop) noteUUID(m Msg) {
	if m.UUID == "" || m.Type == "stream_event" || (m.ParentToolUseID != nil && *m.ParentToolUseID != "") {
		return
	}
	l.record(func(ctx context.Context) error {
		return l.t.d.Recorder.SetMeta(ctx, MetaLastUUID, m.UUID)
	})
}

// finishResult adds what the CLI's result lacks: the auth hint, the
// interrupted subtype.
func (l *loop) finishResult(m Msg, e event.Event, interrupted bool) event.Event {
	if m.APIErrorStatus != nil && *m.APIErrorStatus == 401 {
		e.Error = l.t.rt.authHint(401) + "; " + e.Error
	}
	if interrupted {
		e.Subtype = event.SubtypeInterrupted
		e.IsError = true
		if e.Error == "" {
			e.Error = "interrupted"
		}
	}
	return e
}

// ended handles the process closing stdout without a result.
func (l *loop) ended(interrupted bool) outcome {
	l.p.shutdown(shutdownGrace)
	l.mapper.Flush()
	l.store()
	stderr := l.p.stderr.String()
	if !interrupted && strings.Contains(stderr, missingSessionRe) {
		return outcome{missingSession: true}
	}
	if interrupted {
		return outcome{result: l.synthetic(event.SubtypeInterrupted, "interrupted")}
	}
	return outcome{result: l.synthetic(event.SubtypeError, crashMessage(l.p.exitStatus(), stderr))}
}

// crashOr prefers the crash report when the process has died.
func (l *loop) crashOr(msg string) string {
	if l.p.waitExit(500 * time.Millisecond) {
		return crashMessage(l.p.exitStatus(), l.p.stderr.String())
	}
	return msg
}

// store appends the conversation messages the mapper completed.
func (l *loop) store() {
	for _, m := range l.mapper.TakeMessages() {
		if m.Usage != nil {
			l.usage = l.usage.Add(*m.Usage)
		}
		l.record(func(ctx context.Context) error { return l.t.d.Recorder.Append(ctx, m) })
	}
	l.storeChildren()
}

// storeChildren stores sub-agent messages in child sessions, when the
// recorder can make them.
func (l *loop) storeChildren() {
	cr, ok := l.t.d.Recorder.(turn.ChildRecorder)
	batches := l.mapper.TakeChildMessages()
	if !ok {
		return
	}
	for _, b := range batches {
		rec := l.children[b.ParentToolUseID]
		if rec == nil {
			model := ""
			if len(b.Messages) > 0 {
				for _, m := range b.Messages {
					if m.Model != "" {
						model = m.Model
						break
					}
				}
			}
			l.record(func(ctx context.Context) error {
				_, r, err := cr.Child(ctx, b.ParentToolUseID, l.mapper.SubTitle(b.ParentToolUseID), model)
				rec = r
				return err
			})
			if rec == nil {
				continue
			}
			if l.children == nil {
				l.children = map[string]turn.Recorder{}
			}
			l.children[b.ParentToolUseID] = rec
		}
		for _, m := range b.Messages {
			l.record(func(ctx context.Context) error { return rec.Append(ctx, m) })
		}
	}
}

// record runs a recorder call, keeping the first error; the turn goes on
// so the CLI is shut down properly.
func (l *loop) record(f func(context.Context) error) {
	if l.t.d.Recorder == nil || l.recordErr != nil {
		return
	}
	if err := f(context.Background()); err != nil {
		l.recordErr = fmt.Errorf("claude-code: record: %w", err)
	}
}

func (l *loop) synthetic(subtype, msg string) event.Event {
	e := errorResult(subtype, msg)
	if l.usage != (message.Usage{}) {
		u := l.usage
		e.Usage = &u
	}
	return e
}

func errorResult(subtype, msg string) event.Event {
	return event.Event{Type: event.Result, Subtype: subtype, IsError: true, Error: msg}
}

// arm starts (or restarts) the first-byte watchdog: a request to the
// model is about to be made.
func (l *loop) arm() {
	l.disarm()
	l.firstByte.Reset(l.t.rt.cfg.firstByteTimeout())
	l.fbArmed = true
}

func (l *loop) disarm() {
	if l.fbArmed {
		if !l.firstByte.Stop() {
			select {
			case <-l.firstByte.C:
			default:
			}
		}
		l.fbArmed = false
	}
}

func isMissingSession(m Msg) bool {
	if !m.IsError {
		return false
	}
	for _, e := range m.Errors {
		if strings.Contains(e, missingSessionRe) {
			return true
		}
	}
	return false
}

func knownType(t string) bool {
	switch t {
	case "rate_limit_event", "tool_progress", "tool_use_summary", "auth_status", "prompt_suggestion",
		"conversation_reset", "command_lifecycle", "transcript_mirror":
		return true
	}
	return false
}
