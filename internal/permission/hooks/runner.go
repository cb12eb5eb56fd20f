package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/secrets"
)

// DefaultTimeout applies to a hook without its own timeout.
const DefaultTimeout = 60 * time.Second

// Runner runs the hooks of one Config.
type Runner struct {
	cfg        Config
	projectDir string
	env        []string
}

// NewRunner returns a runner for cfg. Hooks run in projectDir with
// CLAUDE_PROJECT_DIR and TANDEM_PROJECT_DIR set; env (nil: the process
// environment) is the rest of their environment.
func NewRunner(cfg Config, projectDir string, env []string) *Runner {
	if env == nil {
		env = secrets.Default().ScrubEnv(os.Environ())
	}
	return &Runner{cfg: cfg, projectDir: projectDir, env: env}
}

// Has reports whether any hook is configured for event.
func (r *Runner) Has(event string) bool { return r != nil && len(r.cfg[event]) > 0 }

// Run runs every command hook of in.HookEventName whose matcher matches
// in.ToolName (tool events) concurrently, and combines their answers.
func (r *Runner) Run(ctx context.Context, in Input) (Outcome, error) {
	if r == nil {
		return Outcome{}, nil
	}
	var handlers []Handler
	for _, m := range r.cfg[in.HookEventName] {
		if in.ToolName != "" && !m.matches(in.ToolName) {
			continue
		}
		for _, h := range m.Hooks {
			if h.Type == "command" {
				handlers = append(handlers, h)
			}
		}
	}
	if len(handlers) == 0 {
		return Outcome{}, nil
	}
	if in.Cwd == "" {
		in.Cwd = r.projectDir
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		return Outcome{}, fmt.Errorf("encode hook input: %w", err)
	}
	results := make([]result, len(handlers))
	var wg sync.WaitGroup
	for i, h := range handlers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.runOne(ctx, h, stdin)
		}()
	}
	wg.Wait()
	return combine(in.HookEventName, handlers, results), nil
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

type result struct {
	exitCode int
	stdout   string
	stderr   string
	err      error // could not run, or timed out
}

func (r *Runner) runOne(ctx context.Context, h Handler, stdin []byte) result {
	timeout := DefaultTimeout
	if h.Timeout > 0 {
		timeout = time.Duration(h.Timeout * float64(time.Second))
	}
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
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: strings.TrimSpace(errb.String())}
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

// output is the JSON a hook may print (Claude Code's fields).
type output struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"` // legacy: approve | block
	Reason        string `json:"reason"`
	Specific      struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func rank(d string) int {
	switch d {
	case DecisionDeny:
		return 3
	case DecisionAsk:
		return 2
	case DecisionAllow:
		return 1
	}
	return 0
}

func combine(event string, hs []Handler, rs []result) Outcome {
	var o Outcome
	var reasons, contexts []string
	raise := func(d, reason string) {
		if d == DecisionDeny && reason != "" {
			reasons = append(reasons, reason)
		}
		if rank(d) > rank(o.Decision) {
			o.Decision = d
			if d != DecisionDeny && reason != "" {
				o.Reason = reason
			}
		}
	}
	for i, res := range rs {
		switch {
		case res.err != nil:
			o.Errors = append(o.Errors, res.err.Error())
		case res.exitCode == 2:
			reason := res.stderr
			if reason == "" {
				reason = fmt.Sprintf("blocked by hook %q", hs[i].Command)
			}
			raise(DecisionDeny, reason)
		case res.exitCode != 0:
			o.Errors = append(o.Errors, fmt.Sprintf("hook %q exited %d: %s", hs[i].Command, res.exitCode, res.stderr))
		default:
			trimmed := strings.TrimSpace(res.stdout)
			var out output
			if strings.HasPrefix(trimmed, "{") && json.Unmarshal([]byte(trimmed), &out) == nil {
				applyOutput(&o, out, raise, &contexts)
			} else if trimmed != "" && (event == UserPromptSubmit || event == "SessionStart") {
				contexts = append(contexts, trimmed)
			}
		}
	}
	if len(reasons) > 0 {
		o.Reason = strings.Join(reasons, "\n")
	}
	o.AdditionalContext = strings.Join(contexts, "\n")
	return o
}

func applyOutput(o *Outcome, out output, raise func(string, string), contexts *[]string) {
	sp := out.Specific
	switch sp.PermissionDecision {
	case "allow", "ask", "deny":
		raise(sp.PermissionDecision, sp.PermissionDecisionReason)
	}
	switch out.Decision {
	case "block":
		raise(DecisionDeny, out.Reason)
	case "approve":
		raise(DecisionAllow, out.Reason)
	}
	if len(sp.UpdatedInput) > 0 && string(sp.UpdatedInput) != "null" {
		o.UpdatedInput = sp.UpdatedInput
	}
	if sp.AdditionalContext != "" {
		*contexts = append(*contexts, sp.AdditionalContext)
	}
	if out.Continue != nil && !*out.Continue {
		o.Stop = true
		o.StopReason = out.StopReason
	}
	if out.SystemMessage != "" {
		o.SystemMessage = out.SystemMessage
	}
}
