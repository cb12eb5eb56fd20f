package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/tool"
)

//go:embed edit.md
var editDescription string

// maxEditInput bounds old_string and new_string.
const maxEditInput = 4 << 20

const editSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The absolute path to the file to modify"},
    "old_string": {"type": "string", "description": "The text to replace"},
    "new_string": {"type": "string", "description": "The text to replace it with (must be different from old_string)"},
    "replace_all": {"type": "boolean", "default": false, "description": "Replace all occurrences of old_string (default false)"}
  },
  "required": ["file_path", "old_string", "new_string"],
  "additionalProperties": false
}`

// Edit is the Edit tool: one exact (or tolerantly matched) replacement.
type Edit struct{}

// NewEdit returns the Edit tool.
func NewEdit() *Edit { return &Edit{} }

func (*Edit) Name() string            { return "Edit" }
func (*Edit) Description() string     { return editDescription }
func (*Edit) Schema() json.RawMessage { return json.RawMessage(editSchema) }

type editInput struct {
	FilePath   string  `json:"file_path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
}

func (*Edit) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil || call.Env.State == nil {
		return tool.Result{}, errors.New("Edit: tool call without a session Env")
	}
	var in editInput
	if err := tool.DecodeInput("Edit", call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString("Edit", "file_path", in.FilePath); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	op, msg := checkOp("Edit", "", in.OldString, in.NewString, in.ReplaceAll)
	if msg != "" {
		return tool.ErrorResult(msg), nil
	}
	ch, msg := changeFile(ctx, call.Env, "Edit", in.FilePath, []editOp{op})
	if msg != "" {
		return tool.ErrorResult(msg), nil
	}
	summary := fmt.Sprintf("The file %s has been updated%s.", ch.abs, relNote(in.FilePath, ch.abs))
	switch {
	case ch.created:
		summary = fmt.Sprintf("Created the new file %s%s.", ch.abs, relNote(in.FilePath, ch.abs))
	case in.ReplaceAll:
		summary = fmt.Sprintf("The file %s has been updated%s. All %d occurrences of old_string were replaced with new_string.", ch.abs, relNote(in.FilePath, ch.abs), ch.steps[0].replacements)
	}
	return ch.result(summary), nil
}

// checkOp validates one old/new pair; prefix names it inside MultiEdit.
func checkOp(toolName, prefix string, old, new *string, all bool) (editOp, string) {
	for _, f := range []struct {
		name string
		v    *string
	}{{"old_string", old}, {"new_string", new}} {
		switch {
		case f.v == nil:
			return editOp{}, fmt.Sprintf("invalid input for %s: the required parameter %q is missing", toolName, prefix+f.name)
		case len(*f.v) > maxEditInput:
			return editOp{}, fmt.Sprintf("invalid input for %s: %q is %s; the limit is %s. Use Write to replace a whole file, or make smaller edits.", toolName, prefix+f.name, humanSize(int64(len(*f.v))), humanSize(maxEditInput))
		case containsNUL(*f.v):
			return editOp{}, fmt.Sprintf("invalid input for %s: %q contains a NUL byte; the file tools only edit text.", toolName, prefix+f.name)
		}
	}
	return editOp{Old: *old, New: *new, ReplaceAll: all}, ""
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}
