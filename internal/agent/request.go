package agent

import (
	"context"
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/prompt"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// Prompter builds the system prompt (internal/prompt.Builder).
type Prompter interface {
	// Environment takes the facts of a session's environment; the loop
	// takes them once per session (see environment).
	Environment(ctx context.Context, cwd string) prompt.Environment
	Sections(req prompt.Request) []prompt.Section
}

// buildRequest is the next request with msgs as its conversation.
func (r *Runtime) buildRequest(st *turnState, msgs []message.Message) provider.Request {
	specs := toolSpecs(st)
	system := prompt.Blocks(r.systemSections(st, specs))
	var outSchema json.RawMessage
	if st.schema != nil {
		system = append(system, st.schema.Instruction())
		outSchema = st.schema.Raw()
	}
	return provider.Request{
		OutputSchema:   outSchema,
		NativeOutput:   outSchema != nil && st.model.NativeOutput,
		Model:          st.model.ID,
		System:         system,
		Messages:       msgs,
		Tools:          specs,
		MaxTokens:      st.model.MaxOutput,
		ThinkingBudget: st.model.ThinkingBudget,
		Effort:         st.model.Effort,
		ThinkingMode:   st.model.ThinkingMode,
	}
}

// systemSections is the system prompt for the request offering specs.
func (r *Runtime) systemSections(st *turnState, specs []provider.ToolSpec) []prompt.Section {
	if st.in.SystemPrompt != "" {
		// --system-prompt replaces tandem's prompt and project instructions,
		// as Claude Code's flag does; --append-system-prompt still applies.
		secs := []prompt.Section{{Block: 0, Name: "--system-prompt", Text: st.in.SystemPrompt}}
		if st.in.AppendSystemPrompt != "" {
			secs = append(secs, prompt.Section{Block: 1, Name: "appended", Text: st.in.AppendSystemPrompt})
		}
		return secs
	}
	if r.opts.Prompt == nil {
		if st.in.AppendSystemPrompt == "" {
			return nil
		}
		return []prompt.Section{{Name: "appended", Text: st.in.AppendSystemPrompt}}
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return r.opts.Prompt.Sections(prompt.Request{Cwd: st.in.Cwd, Append: st.in.AppendSystemPrompt, Model: st.model.ID,
		Mode: mode(st), NoAsker: !canAsk(st.d.Checker), Tools: names, Env: r.environment(st)})
}

// environmentKey is where a session's environment facts are kept in its
// tool.State: taken once, so the system prompt stays the same from step
// to step (and turn to turn) and the provider's cache keeps hitting.
const environmentKey = "agent.prompt.environment"

func (r *Runtime) environment(st *turnState) prompt.Environment {
	take := func() any { return r.opts.Prompt.Environment(context.Background(), st.in.Cwd) }
	if st.d.Env == nil || st.d.Env.State == nil {
		return take().(prompt.Environment)
	}
	return st.d.Env.State.Load(environmentKey, take).(prompt.Environment)
}

// mode is the permission mode calls are judged in now: the checker's when
// it says (the user may switch modes between steps), else the turn's.
func mode(st *turnState) permission.Mode {
	if m, ok := st.d.Checker.(interface{ Mode() permission.Mode }); ok {
		return m.Mode()
	}
	if st.in.Mode == "" {
		return permission.Normal
	}
	return st.in.Mode
}

// canAsk: a checker that says nobody can answer (no asker) makes the
// prompt tell the model to act rather than ask.
func canAsk(c permission.Checker) bool {
	if a, ok := c.(interface{ CanAsk() bool }); ok {
		return a.CanAsk()
	}
	return true
}

// toolSpecs are the tools offered in the next request.
func toolSpecs(st *turnState) []provider.ToolSpec {
	var out []provider.ToolSpec
	for _, t := range offeredTools(st) {
		out = append(out, provider.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()})
	}
	return out
}

// offeredTools are the registry's tools that the flags allow, that can
// work with this turn's model (tool.Availability) and that can do
// something in the current mode (permission.Mode.Offers).
func offeredTools(st *turnState) []tool.Tool {
	m := mode(st)
	var out []tool.Tool
	for _, t := range st.d.Tools.List() {
		if st.filter.Offered(t.Name()) && tool.UnavailableReason(t, st.spec) == "" && permission.Offers(m, t) {

			out = append(out, t)
		}
	}
	return out
}

// Preview is the request the turn in would send first, with d's tools and
// checker and model m: what `tandem prompt show` prints. It runs nothing
// and stores nothing.
func (r *Runtime) Preview(in turn.Input, d turn.Deps, m Model) provider.Request {
	st := &turnState{in: in, d: d, spec: in.Model, model: m, filter: permission.NewToolFilter(in.AllowedTools, in.DisallowedTools).WithTools(d.Tools.Lookup())}
	st.applyTurnModel()
	msgs := []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock(in.Prompt)}}}
	return r.buildRequest(st, msgs)
}

// PreviewSections is Preview's system prompt as named sections.
func (r *Runtime) PreviewSections(in turn.Input, d turn.Deps, m Model) []prompt.Section {
	st := &turnState{in: in, d: d, spec: in.Model, model: m, filter: permission.NewToolFilter(in.AllowedTools, in.DisallowedTools).WithTools(d.Tools.Lookup())}
	st.applyTurnModel()
	return r.systemSections(st, toolSpecs(st))
}
