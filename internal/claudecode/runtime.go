package claudecode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"

	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/structured"
	"github.com/tandem-agent/tandem/internal/turn"
)

// MetaSessionID is the Recorder meta key holding the Claude Code session id
// the next turn resumes.
const MetaSessionID = "claude_session_id"

// MetaLastUUID holds the uuid of the last main-chain message the CLI sent
// (its transcript entry): a checkpoint keeps it so a rewind can resume the
// transcript from there.
const MetaLastUUID = "claude_last_uuid"

// MetaResumeAt, set by a rewind, makes the next turn resume the transcript
// at that entry (--resume-session-at) instead of at its end; it is cleared
// once a turn has run.
const MetaResumeAt = "claude_resume_at"

// MetaTurnBase is where the CLI's conversation stood when the running
// turn began: "<session id> <transcript entry uuid>" (either may be
// empty). A resumed run of the turn (turn.Input.Resume: another replica,
// or this process after a restart, goes on with a turn that stopped)
// starts from it (resumePoint).
const MetaTurnBase = "claude_turn_base"

// resumeNote is what a resumed turn sends the CLI in place of the prompt
// when the CLI's transcript holds the prompt and some of the turn's work.
const resumeNote = "[tandem: the process running this turn stopped before the turn ended, and it resumes here. " +
	"The user's message above is still the request: go on from where the work stopped. " +
	"A tool call that has no result may have run in part or in whole: check before repeating anything that changes state.]"

// resumePoint is how a resumed turn launches the CLI so the model sees
// the user's message once: when the stopped run recorded nothing of the
// CLI's output (the transcript holds at most the prompt), the transcript
// is resumed at the entry before the prompt (--resume-session-at) and the
// prompt sent again; otherwise it is resumed at the last entry the stopped
// run recorded (cutting a step in flight) and a note asking the model to
// go on is sent instead of the prompt.
func resumePoint(ctx context.Context, rec turn.Recorder, prompt string) (resumeID, resumeAt, send string) {
	base, _ := rec.Meta(ctx, MetaTurnBase)
	baseID, baseAt, _ := strings.Cut(base, " ")
	id, _ := rec.Meta(ctx, MetaSessionID)
	last, _ := rec.Meta(ctx, MetaLastUUID)
	if id == "" || last == "" || last == baseAt {
		if baseAt == "" {
			baseID = "" // nothing before the prompt to resume: a fresh conversation
		}
		return baseID, baseAt, prompt
	}
	return id, last, resumeNote
}

// Runtime runs turns with the Claude Code CLI. It is safe for concurrent
// turns of different sessions.
type Runtime struct {
	cfg    Config
	opts   Options
	logger *slog.Logger

	mu     sync.Mutex
	cli    CLIInfo // cached after the first successful Find
	active map[string]*controller
	// mcpSeen is, by tandem session, the MCP servers the CLI last
	// reported (system/init).
	mcpSeen map[string][]MCPServer
}

var _ turn.Runtime = (*Runtime)(nil)

// New returns a runtime. Configuration problems and a missing CLI are
// reported by RunTurn (and by Doctor), not here, so that constructing the
// runtime never fails.
func New(cfg Config, opts Options) *Runtime {
	l := opts.Logger
	if l == nil {
		l = slog.Default()
	}
	return &Runtime{cfg: cfg, opts: opts, logger: l, active: map[string]*controller{}, mcpSeen: map[string][]MCPServer{}}
}

// Name is "claude-code".
func (r *Runtime) Name() string { return runtimeName }

func (r *Runtime) logf(s string) { r.logger.Debug(s, "runtime", runtimeName) }

func (r *Runtime) findCLI() (CLIInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cli.OK {
		return r.cli, nil
	}
	info, err := Find(r.cfg)
	if err != nil {
		return info, err
	}
	r.cli = info
	return info, nil
}

// RunTurn runs one turn. Everything that goes wrong once the turn has
// started ends in a result event; the error return is kept for recorder
// failures.
func (r *Runtime) RunTurn(ctx context.Context, in turn.Input, d turn.Deps) (event.Event, error) {
	start := time.Now()
	fail := func(msg string) (event.Event, error) {
		e := event.Event{Type: event.Result, Subtype: event.SubtypeError, IsError: true, Error: msg,
			DurationMS: time.Since(start).Milliseconds()}
		return emitResult(d, e), nil
	}
	if err := r.cfg.Validate(); err != nil {
		return fail(err.Error())
	}
	if in.Cwd == "" {
		return fail("claude-code runtime: the turn has no working folder")
	}
	if len(in.JSONSchema) > 0 {
		// The same check, and words, as the native runtime's: a bad
		// schema fails before the CLI starts.
		if _, err := structured.Compile(in.JSONSchema); err != nil {
			return fail("--json-schema: " + err.Error())
		}
	}
	if isRoot() && wantsBypass(r.cfg.ExtraArgs) && !r.cfg.AllowRoot {
		return fail("Claude Code refuses bypassPermissions when run as root; remove it from claude_code.extra_args or set claude_code.allow_root (sets IS_SANDBOX=1) if this is a sandbox")
	}
	cli, err := r.findCLI()
	if err != nil {
		return fail(cli.Problem)
	}
	in.Prompt = withNotices(in.Prompt, d.Env)
	prompt := in.Prompt
	resume, resumeAt := "", ""
	if d.Recorder != nil {
		resume, _ = d.Recorder.Meta(ctx, MetaSessionID)
		if resume != "" {
			resumeAt, _ = d.Recorder.Meta(ctx, MetaResumeAt)
		}
	}
	if in.Resume && d.Recorder != nil {
		// The prompt is stored, and the CLI's transcript may hold it.
		resume, resumeAt, in.Prompt = resumePoint(ctx, d.Recorder, in.Prompt)
		r.logger.Info("resuming a turn that stopped", "session", in.SessionID, "claude_session", resume, "resume_at", resumeAt,
			"prompt_again", in.Prompt == prompt)
	} else {
		if err := r.recordPrompt(ctx, in, d); err != nil {
			return event.Event{}, err
		}
		if d.Recorder != nil {
			// Where the CLI's conversation stood before this prompt, for a
			// resumed run of this turn (resumePoint).
			at := resumeAt
			if at == "" && resume != "" {
				at, _ = d.Recorder.Meta(ctx, MetaLastUUID)
			}
			if err := d.Recorder.SetMeta(ctx, MetaTurnBase, resume+" "+at); err != nil {
				return event.Event{}, fmt.Errorf("record the turn's start: %w", err)
			}
		}
	}
	t := &turnRun{rt: r, cli: cli, in: in, d: d, start: start}
	out := t.attempt(ctx, launch{resumeID: resume, resumeAt: resumeAt})
	if resumeAt != "" && d.Recorder != nil {
		_ = d.Recorder.SetMeta(context.WithoutCancel(ctx), MetaResumeAt, "")
	}
	if out.missingSession {
		emit(d, event.Event{Type: event.Status, Runtime: runtimeName, Message: fmt.Sprintf(
			"the Claude Code conversation %s no longer exists; starting a fresh one (earlier context is not available to the model)", resume)})
		if d.Recorder != nil {
			_ = d.Recorder.SetMeta(ctx, MetaSessionID, "")
		}
		t.in.Prompt = prompt // a resumed turn's note means nothing to a fresh conversation
		out = t.attempt(ctx, launch{})
	}
	if out.recordErr != nil {
		return event.Event{}, out.recordErr
	}
	out.result.DurationMS = time.Since(start).Milliseconds()
	return emitResult(d, out.result), nil
}

// emitResult emits the turn's result and then done, as the native runtime
// does, and returns the result as the sinks saw it (stamped).
func emitResult(d turn.Deps, e event.Event) event.Event {
	if d.Events == nil {
		return e
	}
	e = d.Events.Publish(e)
	d.Events.Emit(event.Event{Type: event.Done})
	return e
}

func emit(d turn.Deps, e event.Event) {
	if d.Events != nil {
		d.Events.Emit(e)
	}
}

// recordPrompt stores the user's message before the CLI sees it, as the
// native runtime does.
func (r *Runtime) recordPrompt(ctx context.Context, in turn.Input, d turn.Deps) error {
	if d.Recorder == nil {
		return nil
	}
	content := append([]message.Block{}, in.Images...)
	content = append(content, message.TextBlock(in.Prompt))
	m := message.Message{ID: newID("msg_user_"), Role: message.User, Content: content, CreatedAt: time.Now().UTC()}
	if err := d.Recorder.Append(ctx, m); err != nil {
		return fmt.Errorf("record prompt: %w", err)
	}
	return nil
}

func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// SetPermissionMode forwards a mode change to the CLI running sessionID's
// turn. tandem's Checker decides every call, so this only keeps the CLI's
// own notion in step (e.g. "plan"); an error means no turn is running.
func (r *Runtime) SetPermissionMode(ctx context.Context, sessionID, mode string) error {
	return r.control(ctx, sessionID, map[string]any{"subtype": "set_permission_mode", "mode": mode})
}

// SetModel switches the model of sessionID's running turn (model "" means
// the CLI's default).
func (r *Runtime) SetModel(ctx context.Context, sessionID, model string) error {
	var m any
	if model != "" {
		m = modelName(model, r.opts.ProviderName)
	}
	return r.control(ctx, sessionID, map[string]any{"subtype": "set_model", "model": m})
}

// Interrupt asks the CLI running sessionID's turn to stop; the turn then
// ends with an interrupted result. Cancelling RunTurn's context does the
// same.
func (r *Runtime) Interrupt(ctx context.Context, sessionID string) error {
	return r.control(ctx, sessionID, map[string]any{"subtype": "interrupt"})
}

// controlTimeout bounds host requests other than initialize.
const controlTimeout = 10 * time.Second

func (r *Runtime) control(ctx context.Context, sessionID string, body map[string]any) error {
	return r.controlWithin(ctx, sessionID, body, controlTimeout)
}

func (r *Runtime) controlWithin(ctx context.Context, sessionID string, body map[string]any, timeout time.Duration) error {
	r.mu.Lock()
	c := r.active[sessionID]
	r.mu.Unlock()
	if c == nil {
		return fmt.Errorf("no claude-code turn is running for session %s", sessionID)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := c.request(ctx, body)
	return err
}

func (r *Runtime) setActive(sessionID string, c *controller) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c == nil {
		delete(r.active, sessionID)
		return
	}
	r.active[sessionID] = c
}

// authHint is the message for a 401 from the provider.
func (r *Runtime) authHint(status int) string {
	where := "the Anthropic API"
	if r.opts.BaseURL != "" {
		where = r.opts.BaseURL
	}
	return fmt.Sprintf("authentication failed (HTTP %d from %s): set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or the provider's api_key in tandem's config), or run `claude /login`", status, where)
}

// stderrTail is the end of the CLI's stderr for error messages.
func stderrTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// crashMessage explains an exit without a result.
func crashMessage(status, stderr string) string {
	tail := stderrTail(stderr, 2000)
	switch {
	case strings.Contains(tail, "root/sudo privileges"):
		return "Claude Code refuses to bypass permissions as root; set claude_code.allow_root (sets IS_SANDBOX=1) only inside a sandbox. stderr: " + tail
	case strings.Contains(tail, "cannot be launched inside another Claude Code session"):
		return "Claude Code refused a nested launch (CLAUDECODE is set); stderr: " + tail
	}
	if tail == "" {
		tail = "(empty)"
	}
	return fmt.Sprintf("claude exited without a result (%s); stderr: %s", status, tail)
}
