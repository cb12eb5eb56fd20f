package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/secrets"
)

// DefaultTimeout applies to a hook without its own timeout (Claude
// Code's default for command and http hooks).
const DefaultTimeout = 600 * time.Second

// Runner runs the hooks of one Config.
type Runner struct {
	cfg        Config
	projectDir string
	env        []string
	client     *http.Client
	judgeBy    Judge
	// delivered gets what async hooks said when they end.
	delivered func(Input, Outcome)
	confine   func(*exec.Cmd) error // sandbox.go
	denials   func(output, dir string)
}

// SetJudge sets what answers prompt and agent hooks. Call it before the
// runner's first event.
func (r *Runner) SetJudge(j Judge) {
	if r != nil {
		r.judgeBy = j
	}
}

// SetAsyncSink sets what receives an async hook's outcome when it ends
// (its additionalContext and systemMessage; it can no longer block).
// Without one the outcome is dropped. Call it before the first event.
func (r *Runner) SetAsyncSink(f func(Input, Outcome)) {
	if r != nil {
		r.delivered = f
	}
}

// NewRunner returns a runner for cfg. Hooks run in projectDir with
// CLAUDE_PROJECT_DIR and TANDEM_PROJECT_DIR set; env (nil: the process
// environment) is the rest of their environment and what http hooks'
// headers may expand.
func NewRunner(cfg Config, projectDir string, env []string) *Runner {
	if env == nil {
		env = secrets.Default().ScrubEnv(os.Environ())
	}
	// Redirects are not followed: a hook's answer comes from its own URL.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Runner{cfg: cfg, projectDir: projectDir, env: env, client: client}
}

// Has reports whether any hook is configured for event.
func (r *Runner) Has(event string) bool { return r != nil && len(r.cfg[event]) > 0 }

// handlers are the runnable hooks of in's event whose matcher matches,
// each distinct command or URL once.
func (r *Runner) handlers(in Input) []Handler {
	sp, _ := spec(in.HookEventName)
	var out []Handler
	seen := map[string]bool{}
	for _, m := range r.cfg[in.HookEventName] {
		if sp.matchOn != nil && !m.matches(sp.matchOn(in)) {
			continue
		}
		for _, h := range m.Hooks {
			if h.runs() && !seen[h.key()] {
				seen[h.key()] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// Run runs every hook of in.HookEventName whose matcher matches (the tool
// name for tool events, source/reason/notification_type/agent_type/trigger
// for the others) concurrently, and combines their answers.
func (r *Runner) Run(ctx context.Context, in Input) (Outcome, error) {
	if r == nil {
		return Outcome{}, nil
	}
	if _, ok := spec(in.HookEventName); !ok {
		return Outcome{}, fmt.Errorf("unknown hook event %q", in.HookEventName)
	}
	handlers := r.handlers(in)
	if len(handlers) == 0 {
		return Outcome{}, nil
	}
	if in.Cwd == "" {
		in.Cwd = r.projectDir
	}
	body, err := json.Marshal(in)
	if err != nil {
		return Outcome{}, fmt.Errorf("encode hook input: %w", err)
	}
	var waited []Handler
	for _, h := range handlers {
		if h.Async && h.Type == TypeCommand {
			r.background(ctx, h, in, body)
		} else {
			waited = append(waited, h)
		}
	}
	results := make([]result, len(waited))
	var wg sync.WaitGroup
	for i, h := range waited {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.runHandler(ctx, h, in, body)
		}()
	}
	wg.Wait()
	return combineFor(in, waited, results), nil
}

func (r *Runner) runHandler(ctx context.Context, h Handler, in Input, body []byte) result {
	switch h.Type {
	case TypeHTTP:
		return r.post(ctx, h, body)
	case TypeCallback:
		return call(ctx, h, in)
	case TypePrompt, TypeAgent:
		return r.judge(ctx, h, in.HookEventName, body)
	}
	return r.runOne(ctx, h, body)
}

// background runs an async command hook without making the event wait
// (Claude Code's "async": true): it outlives the event (not the timeout),
// cannot block or decide, and its outcome goes to the async sink.
func (r *Runner) background(ctx context.Context, h Handler, in Input, body []byte) {
	ctx = context.WithoutCancel(ctx)
	go func() {
		res := r.runOne(ctx, h, body)
		out := combineFor(in, []Handler{h}, []result{res})
		// What decides has no moment left to decide.
		out.Decision, out.Reason, out.UpdatedInput, out.Stop, out.StopReason = DecisionNone, "", nil, false, ""
		out.UpdatedToolOutput, out.UpdatedPermissions, out.Interrupt = nil, nil, false
		if r.delivered != nil {
			r.delivered(in, out)
		}
	}()
}

// PreToolUse, PostToolUse, UserPromptSubmit and Stop are Run with the
// event name filled in.
func (r *Runner) PreToolUse(ctx context.Context, in Input) (Outcome, error) {
	in.HookEventName = PreToolUse
	return r.Run(ctx, in)
}

// PostToolUse runs after a tool call; a block's Reason goes to the model.
func (r *Runner) PostToolUse(ctx context.Context, in Input) (Outcome, error) {
	in.HookEventName = PostToolUse
	return r.Run(ctx, in)
}

// UserPromptSubmit runs before a prompt is sent; a block erases the prompt.
func (r *Runner) UserPromptSubmit(ctx context.Context, in Input) (Outcome, error) {
	in.HookEventName = UserPromptSubmit
	return r.Run(ctx, in)
}

// Stop runs when the agent would finish; a block's Reason is given to the
// model and the turn goes on.
func (r *Runner) Stop(ctx context.Context, in Input) (Outcome, error) {
	in.HookEventName = Stop
	return r.Run(ctx, in)
}

func (h Handler) timeout() time.Duration {
	if h.Timeout > 0 {
		return time.Duration(h.Timeout * float64(time.Second))
	}
	switch h.Type {
	case TypePrompt:
		return PromptTimeout
	case TypeAgent:
		return AgentTimeout
	}
	return DefaultTimeout
}

// call runs a callback hook within its timeout; its answer is read as a
// command hook's stdout.
func call(ctx context.Context, h Handler, in Input) result {
	timeout := h.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := h.Callback(ctx, in)
	switch {
	case ctx.Err() != nil && err != nil:
		return result{err: fmt.Errorf("hook %s stopped after %s: %w", h, timeout, ctx.Err())}
	case err != nil:
		return result{err: fmt.Errorf("hook %s: %w", h, err)}
	}
	return result{stdout: string(out)}
}

// runOne runs a command hook. It is the one place a hook's process starts
// (the OS sandbox wraps it here).
func (r *Runner) runOne(ctx context.Context, h Handler, stdin []byte) result {
	timeout := h.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", h.Command)
	cmd.Dir = r.projectDir
	cmd.Env = append(append([]string(nil), r.env...), "CLAUDE_PROJECT_DIR="+r.projectDir, "TANDEM_PROJECT_DIR="+r.projectDir)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Kill the whole process group: a hook's children (sleep, curl) must
	// not outlive its timeout.
	cmd.SysProcAttr = commandAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	if err := r.confineCmd(cmd); err != nil {
		return result{err: fmt.Errorf("run hook %q: %w", h.Command, err)}
	}
	runtime.LockOSThread() // the death signal follows this thread (commandAttr)
	err := cmd.Run()
	runtime.UnlockOSThread()
	res := result{stdout: out.String(), stderr: strings.TrimSpace(errb.String())}
	if r.denials != nil {
		r.denials(res.stdout+"\n"+res.stderr, cmd.Dir)
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.err = fmt.Errorf("hook %q stopped after %s: %w", h.Command, timeout, ctx.Err())
	case errors.As(err, &exitErr):
		res.exitCode = exitErr.ExitCode()
	case err != nil:
		res.err = fmt.Errorf("run hook %q: %w", h.Command, err)
	}
	return res
}
