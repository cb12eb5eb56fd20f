package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// CwdFunc reports the folder a shell command would run in; the shell tool
// keeps it per session. Set by the wiring (internal/session) when available.
type CwdFunc func(env *tool.Env) string

// runTools executes one step's tool calls and returns the user message that
// carries their results, in the order the model asked. Consecutive
// read-only calls run in parallel; anything that may change the world runs
// alone, in order, so effects happen as the model sequenced them.
func (r *Runtime) runTools(ctx context.Context, st *turnState, uses []message.Block) message.Message {
	for _, u := range uses {
		st.d.Events.Emit(event.Event{Type: event.ToolUse, ToolUseID: u.ID, ToolName: u.Name, Input: u.Input})
	}
	results := make([]message.Block, len(uses))
	spent := make([]tool.Result, len(uses))
	if st.budget != nil {
		ctx = turn.WithBudget(ctx, st.budget)
	}
	for i := 0; i < len(uses); {
		j := i + 1
		if r.readOnly(st, uses[i].Name) {
			for j < len(uses) && r.readOnly(st, uses[j].Name) {
				j++
			}
		}
		if j == i+1 { // one call: no goroutine to start and wait for
			results[i], spent[i] = r.runOne(ctx, st, uses[i])
			i = j
			continue
		}
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				results[k], spent[k] = r.runOne(ctx, st, uses[k])
			}(k)
		}
		wg.Wait()
		i = j
	}
	st.addToolUsage(spent)
	return message.Message{ID: newID("msg"), Role: message.User, Content: append(results, noticeBlocks(st.d.Env)...), CreatedAt: time.Now().UTC()}
}

func (r *Runtime) readOnly(st *turnState, name string) bool {
	t, ok := st.d.Tools.Get(name)
	if !ok {
		return false
	}
	ro, ok := t.(tool.ReadOnly)
	return ok && ro.ReadOnly()
}

// runOne runs a single call: doom-loop check, permission, execution,
// post-hook; it always yields a tool_result block and a tool_result event.
func (r *Runtime) runOne(ctx context.Context, st *turnState, use message.Block) (message.Block, tool.Result) {
	res := r.execute(ctx, st, use)
	block := message.Block{Type: message.ToolResult, ToolUseID: use.ID, IsError: res.IsError, Diff: res.Diff,
		Content: append([]message.Block{message.TextBlock(res.Content)}, res.Images...)}
	st.d.Events.Emit(event.Event{Type: event.ToolResult, ToolUseID: use.ID, ToolName: use.Name,
		Output: res.Content, IsError: res.IsError, Diff: res.Diff, Meta: res.Meta})
	return block, res
}

func (r *Runtime) execute(ctx context.Context, st *turnState, use message.Block) tool.Result {
	if ctx.Err() != nil {
		return tool.ErrorResult("Interrupted by the user before this tool call ran.")
	}
	t, ok := st.d.Tools.Get(use.Name)
	if !ok || !st.filter.Offered(use.Name) {
		return tool.ErrorResult(fmt.Sprintf("No tool named %q is available. Available tools: %s.", use.Name, strings.Join(offeredNames(st), ", ")))
	}
	looping := st.doom.observe(use.Name, use.Input)
	if looping {
		msg := fmt.Sprintf("Refused: %s was called with the same input %d times in a row and keeps giving the same result. Try a different approach, or explain to the user what is blocking you.", use.Name, st.doom.threshold+1)
		st.d.Events.Emit(event.Event{Type: event.Error, ToolUseID: use.ID, ToolName: use.Name, Error: "doom loop: " + msg})
		return tool.ErrorResult(msg)
	}
	input := use.Input
	// The OS sandbox's policy over the paths the tool declares (the same
	// boundary the kernel keeps for commands), before any question: a
	// path it refuses is not worth asking about.
	if res, refused := tool.GuardFiles(t, tool.Call{ID: use.ID, Name: use.Name, Input: input, Env: st.d.Env}); refused {
		return res
	}
	dec, err := r.permit(ctx, st, t, use)
	if err != nil {
		if ctx.Err() != nil {
			return tool.ErrorResult("Interrupted by the user while waiting for permission.")
		}
		return tool.ErrorResult("Permission check failed: " + err.Error())
	}
	if dec.Behavior != permission.Allow {
		if dec.Interrupt {
			st.stopByHook(&StopTurn{Reason: dec.Message})
		}
		st.deny(event.Denial{ToolName: use.Name, ToolUseID: use.ID, ToolInput: use.Input, Reason: dec.Message})
		msg := "Permission denied"
		if dec.Message != "" {
			msg += ": " + dec.Message
		}
		return tool.ErrorResult(msg)
	}
	if len(dec.UpdatedInput) > 0 {
		input = dec.UpdatedInput
	}
	call := tool.Call{ID: use.ID, Name: use.Name, Input: input, Env: st.d.Env}
	res, refused := tool.Result{}, false
	if len(dec.UpdatedInput) > 0 { // a hook or the user changed the input: judged again
		res, refused = tool.GuardFiles(t, call)
	}
	if !refused {
		res, err = safeExecute(ctx, t, call)
	}
	if err != nil {
		res = tool.ErrorResult(fmt.Sprintf("%s failed: %v", use.Name, err))
	}
	if ctx.Err() != nil && !res.IsError {
		res.Content += "\n(The user interrupted the turn after this call finished.)"
	}
	r.postHook(ctx, st, use, input, &res)
	return res
}

func (r *Runtime) permit(ctx context.Context, st *turnState, t tool.Tool, use message.Block) (permission.Decision, error) {
	ro := false
	if x, ok := t.(tool.ReadOnly); ok {
		ro = x.ReadOnly()
	}
	cwd := st.in.Cwd
	if r.opts.ShellCwd != nil {
		if c := r.opts.ShellCwd(st.d.Env); c != "" {
			cwd = c
		}
	}
	return st.d.Checker.Check(ctx, permission.Request{SessionID: st.in.SessionID, ToolUseID: use.ID,
		Tool: use.Name, Input: use.Input, Cwd: cwd, ReadOnly: ro, Interaction: tool.InteractionOf(t)})
}

// interruptedHookBudget bounds PostToolUseFailure hooks of an interrupted call.
const interruptedHookBudget = 5 * time.Second

// postHook runs PostToolUse after a call that worked and
// PostToolUseFailure after one that failed, as Claude Code does.
func (r *Runtime) postHook(ctx context.Context, st *turnState, use message.Block, input json.RawMessage, res *tool.Result) {
	if r.opts.Hooks == nil {
		return
	}
	name, fb, err := "PostToolUse", "", error(nil)
	var replace *string
	switch {
	case res.IsError:
		name = "PostToolUseFailure"
		hctx := ctx
		if ctx.Err() != nil {
			// An interrupted call is reported too, but briefly: the user is waiting.
			var cancel context.CancelFunc
			hctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), interruptedHookBudget)
			defer cancel()
		}
		fb, err = r.opts.Hooks.PostToolUseFailure(hctx, st.in.SessionID, st.in.Cwd, use.Name, use.ID, input, res.Content, ctx.Err() != nil)
	case ctx.Err() != nil:
		return
	default:
		fb, replace, err = r.opts.Hooks.PostToolUse(ctx, st.in.SessionID, st.in.Cwd, use.Name, use.ID, input, res.Content)
	}
	if replace != nil {
		// updatedToolOutput: the model reads the hook's version instead.
		res.Content = *replace
	}
	var stop *StopTurn
	switch {
	case errors.As(err, &stop):
		st.stopByHook(stop)
	case err != nil:
		st.d.Events.Emit(event.Event{Type: event.Error, ToolUseID: use.ID, Error: name + " hook: " + err.Error()})
	}
	if fb != "" {
		res.Content += "\n\n" + name + " hook feedback: " + fb
	}
}

func offeredNames(st *turnState) []string {
	var out []string
	for _, t := range offeredTools(st) {
		out = append(out, t.Name())
	}
	return out
}

// safeExecute runs a tool and turns a panic inside it (a bug in a tool or
// an MCP adapter) into an error result, so one bad call cannot kill the
// session and lose the turn.
func safeExecute(ctx context.Context, t tool.Tool, call tool.Call) (res tool.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = tool.Result{}, fmt.Errorf("the tool crashed (%v); this is a bug in tandem, please report it", p)
		}
	}()
	return t.Execute(ctx, call)
}
