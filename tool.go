package tandem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandem-agent/tandem/internal/tool"
)

// Tool is a tool the program gives the model beside the built-in ones
// (Read, Edit, Bash, ...): a Go function with a JSON Schema for its input.
// Calls go through the permission engine like any other: a tool that is
// not ReadOnly asks in ModeNormal, runs in ModeTrust and is refused in
// ModeExplore. Custom tools run under the native runtime: a session on the
// claude-code runtime (the Claude Code CLI's own tools) with custom tools
// is refused.
type Tool struct {
	// Name is what the model calls (letters, digits, '_' and '-', at most
	// 64). It may not be a built-in tool's name.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// InputSchema is the JSON Schema of the input object; nil means an
	// object with no declared properties.
	InputSchema json.RawMessage
	// ReadOnly declares that the tool changes nothing, so it runs without
	// asking (and in parallel with other read-only calls).
	ReadOnly bool
	// Run runs one call. An error is shown to the model as a failed call
	// (it may try again); it does not end the turn.
	Run func(ctx context.Context, call ToolCall) (ToolResult, error)
}

// ToolCall is one call of a custom tool.
type ToolCall struct {
	ID        string          // the model's tool_use id
	Input     json.RawMessage // as the model sent it (not validated against the schema)
	SessionID string
	WorkDir   string // the session's folder
}

// ToolResult is what the model reads back.
type ToolResult struct {
	Content string
	// IsError marks a failed call.
	IsError bool
	// Meta is passed on in the tool_result event (for the program's UI).
	Meta map[string]any
}

// NewTool builds a Tool whose input is decoded into In; its schema is
// derived from In's exported fields (`json` tags name them, a
// `jsonschema:"..."` tag describes one, fields without omitempty are
// required). A decoding error goes back to the model as a failed call.
func NewTool[In any](name, description string, run func(ctx context.Context, call ToolCall, in In) (ToolResult, error)) (Tool, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %s: derive the input schema: %w", name, err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %s: encode the input schema: %w", name, err)
	}
	return Tool{Name: name, Description: description, InputSchema: raw,
		Run: func(ctx context.Context, call ToolCall) (ToolResult, error) {
			var in In
			if err := tool.DecodeInput(name, call.Input, &in); err != nil {
				return ToolResult{Content: err.Error(), IsError: true}, nil
			}
			return run(ctx, call, in)
		}}, nil
}

var toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// check reports what is wrong with a tool definition.
func (t Tool) check() error {
	if !toolNameRE().MatchString(t.Name) {
		return fmt.Errorf("tool name %q: use 1 to 64 letters, digits, '_' or '-'", t.Name)
	}
	if t.Run == nil {
		return fmt.Errorf("tool %s: Run is nil", t.Name)
	}
	if len(t.InputSchema) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(t.InputSchema, &obj); err != nil {
			return fmt.Errorf("tool %s: InputSchema must be a JSON object: %w", t.Name, err)
		}
	}
	return nil
}

// customTool adapts a Tool to the registry's interface.
type customTool struct{ t Tool }

func (c customTool) Name() string        { return c.t.Name }
func (c customTool) Description() string { return c.t.Description }
func (c customTool) ReadOnly() bool      { return c.t.ReadOnly }

func (c customTool) Schema() json.RawMessage {
	if len(c.t.InputSchema) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return c.t.InputSchema
}

func (c customTool) Execute(ctx context.Context, call tool.Call) (res tool.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = tool.ErrorResult(fmt.Sprintf("%s failed: %v", c.t.Name, p)), nil
		}
	}()
	tc := ToolCall{ID: call.ID, Input: call.Input}
	if call.Env != nil {
		tc.SessionID, tc.WorkDir = call.Env.SessionID, call.Env.WorkDir
	}
	out, err := c.t.Run(ctx, tc)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return tool.ErrorResult(c.t.Name + " was interrupted"), nil
		}
		return tool.ErrorResult(err.Error()), nil
	}
	return tool.Result{Content: out.Content, IsError: out.IsError, Meta: out.Meta}, nil
}
