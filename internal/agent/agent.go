// Package agent is tandem's native runtime: our own loop over model steps.
// Each step streams one provider call, records the assistant message, runs
// the tool calls it asked for (through the permission checker) and records
// their results, so that a kill at any point loses at most the step in
// flight. The loop ends when the model stops calling tools, at the step
// limit, on interrupt, or on an error retries cannot fix.
package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/runtimes"
)

// Model is a resolved model: the adapter to call and what we know of it.
type Model struct {
	Provider provider.Provider
	// ID is the model id as the provider knows it.
	ID string
	// MaxOutput caps the response; 0 picks a default.
	MaxOutput int64
	// Cost prices a call's usage; nil result means unknown.
	Cost func(message.Usage) *float64
	// ThinkingBudget > 0 turns extended thinking on.
	ThinkingBudget int64
	Effort         string
	// ContextWindow is the model's context window in tokens (catalog or
	// config); 0 means unknown, which turns off threshold compaction but
	// not overflow recovery.
	ContextWindow int64
	// NativeOutput: the model accepts its protocol's native
	// structured-output field, sent beside the schema-in-prompt for
	// --json-schema (provider.Request.NativeOutput).
	NativeOutput bool
	// ThinkingMode is the catalog's (provider.Request.ThinkingMode).
	ThinkingMode string
	// Notice is said once per session when the model is used (a legacy
	// or deprecated model, with what to use instead).
	Notice string
	// NoImages: the catalog says the model takes no images, so a prompt
	// with images is refused before it is sent (checkImages).
	NoImages bool
}

// Resolver turns a "provider/model" spec into a Model. The loop resolves at
// the start of every turn so a model switch between turns takes effect.
type Resolver interface {
	Resolve(spec string) (Model, error)
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(spec string) (Model, error)

// Resolve calls f.
func (f ResolverFunc) Resolve(spec string) (Model, error) { return f(spec) }

// HookRunner is the part of the hooks system the loop calls itself
// (PreToolUse runs inside the permission checker). nil means no hooks.
type HookRunner interface {
	// UserPromptSubmit may block the prompt (returns a reason) or add context.
	UserPromptSubmit(ctx context.Context, sessionID, cwd, prompt string) (block string, extra string, err error)
	// PostToolUse may return feedback that is appended to the tool result,
	// and a replacement of the result's text (updatedToolOutput; nil: keep it).
	PostToolUse(ctx context.Context, sessionID, cwd, toolName, toolUseID string, input []byte, result string) (feedback string, replace *string, err error)
	// PostToolUseFailure runs instead of PostToolUse when the call failed;
	// its feedback is appended to the error.
	PostToolUseFailure(ctx context.Context, sessionID, cwd, toolName, toolUseID string, input []byte, errText string, interrupted bool) (feedback string, err error)
	// Stop may ask the loop to continue with a reason given to the model.
	// active is true when an earlier Stop hook of this turn already did
	// (hooks check it to avoid looping); lastMessage is the model's text.
	Stop(ctx context.Context, sessionID, cwd string, active bool, lastMessage string) (continueReason string, err error)
	// PostToolBatch runs once after all calls of a model response are done,
	// before the next model request; its feedback is added to the results.
	PostToolBatch(ctx context.Context, sessionID, cwd string, calls []BatchCall) (feedback string, err error)
	// StopFailure runs when the turn ends because the model call failed
	// (err); it cannot change anything.
	StopFailure(ctx context.Context, sessionID, cwd string, err error, lastMessage string) error
}

// BatchCall is one finished call of a PostToolBatch.
type BatchCall struct {
	Name, ID string
	Input    json.RawMessage
	Output   string
	IsError  bool
}

// StopTurn is the error a HookRunner returns when a hook answered
// `"continue": false`: the turn ends once the current step's tool calls
// are done, and Reason (stopReason) is shown to the user.
type StopTurn struct{ Reason string }

func (s *StopTurn) Error() string { return "a hook stopped the turn: " + s.Reason }

// Options configure the native runtime.
type Options struct {
	Models Resolver
	// Prompt builds the system prompt (internal/prompt.Builder); nil: none
	// but --system-prompt and --append-system-prompt.
	Prompt Prompter
	Retry  RetryPolicy
	Hooks  HookRunner
	// DoomLoopThreshold is how many identical consecutive tool calls are
	// allowed before the next is refused; 0 means 3.
	DoomLoopThreshold int
	// ShellCwd reports the shell's current folder for permission checks of
	// Bash calls; nil means the turn's Cwd.
	ShellCwd CwdFunc
	// Sleep waits between retries; tests replace it. nil means a timer
	// that honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Compaction configures pruning and compaction (docs/compaction.md).
	Compaction compact.Config
	// CompactHooks runs PreCompact/PostCompact hooks; nil means none.
	CompactHooks CompactHooks
}

// RetryPolicy bounds retries of failed provider calls.
type RetryPolicy struct {
	MaxAttempts int           // total attempts per step, 0 means 6
	BaseDelay   time.Duration // first backoff, 0 means 1s
	MaxDelay    time.Duration // cap, 0 means 60s
}

// Runtime is the native implementation of turn.Runtime.
type Runtime struct {
	opts Options
	// noticed holds the model notices already said (a Runtime serves one
	// session, so once per session).
	mu      sync.Mutex
	noticed map[string]bool
}

// New returns a native runtime.
func New(opts Options) (*Runtime, error) {
	if opts.Models == nil {
		return nil, fmt.Errorf("agent: Options.Models is required")
	}
	if opts.DoomLoopThreshold == 0 {
		opts.DoomLoopThreshold = 3
	}
	if opts.Retry.MaxAttempts == 0 {
		opts.Retry.MaxAttempts = 6
	}
	if opts.Retry.BaseDelay == 0 {
		opts.Retry.BaseDelay = time.Second
	}
	if opts.Retry.MaxDelay == 0 {
		opts.Retry.MaxDelay = 60 * time.Second
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	return &Runtime{opts: opts}, nil
}

// Name is runtimes.Native.
func (r *Runtime) Name() string { return string(runtimes.Native) }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
