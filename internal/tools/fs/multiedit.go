package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

//go:embed multiedit.md
var multiEditDescription string

// maxMultiEdits bounds the edits of one MultiEdit call.
const maxMultiEdits = 100

const multiEditSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The absolute path to the file to modify"},
    "edits": {
      "type": "array",
      "description": "Array of edit operations to perform sequentially on the file",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "old_string": {"type": "string", "description": "The text to replace"},
          "new_string": {"type": "string", "description": "The text to replace it with"},
          "replace_all": {"type": "boolean", "default": false, "description": "Replace all occurrences of old_string (default false)."}
        },
        "required": ["old_string", "new_string"],
        "additionalProperties": false
      }
    }
  },
  "required": ["file_path", "edits"],
  "additionalProperties": false
}`

// MultiEdit is the MultiEdit tool: several edits to one file, all or none.
type MultiEdit struct{}

// NewMultiEdit returns the MultiEdit tool.
func NewMultiEdit() *MultiEdit { return &MultiEdit{} }

func (*MultiEdit) Name() string            { return "MultiEdit" }
func (*MultiEdit) Description() string     { return multiEditDescription }
func (*MultiEdit) Schema() json.RawMessage { return json.RawMessage(multiEditSchema) }

type multiEditInput struct {
	FilePath string `json:"file_path"`
	Edits    []struct {
		OldString  *string `json:"old_string"`
		NewString  *string `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
	} `json:"edits"`
}

func (*MultiEdit) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil || call.Env.State == nil {
		return tool.Result{}, errors.New("MultiEdit: tool call without a session Env")
	}
	var in multiEditInput
	if err := tool.DecodeInput("MultiEdit", call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString("MultiEdit", "file_path", in.FilePath); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	switch {
	case len(in.Edits) == 0:
		return tool.ErrorResult(`invalid input for MultiEdit: "edits" must hold at least one {old_string, new_string} edit`), nil
	case len(in.Edits) > maxMultiEdits:
		return tool.ErrorResult(fmt.Sprintf("invalid input for MultiEdit: %d edits is more than the %d allowed in one call; split them, or use Write for a rewrite", len(in.Edits), maxMultiEdits)), nil
	}
	ops := make([]editOp, len(in.Edits))
	for i, e := range in.Edits {
		op, msg := checkOp("MultiEdit", fmt.Sprintf("edits[%d].", i), e.OldString, e.NewString, e.ReplaceAll)
		if msg != "" {
			return tool.ErrorResult(msg), nil
		}
		if i > 0 && normalizeInput(op.Old) == "" {
			return tool.ErrorResult(fmt.Sprintf("invalid input for MultiEdit: edits[%d].old_string is empty; only the first edit may have an empty old_string (to create a new file)", i)), nil
		}
		ops[i] = op
	}
	ch, msg := changeFile(ctx, call.Env, "MultiEdit", in.FilePath, ops)
	if msg != "" {
		return tool.ErrorResult(msg), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Applied %d edits to %s%s:", len(ops), ch.abs, relNote(in.FilePath, ch.abs))
	for i, op := range ops {
		fmt.Fprintf(&b, "\n%d. Replaced %q with %q", i+1, preview(op.Old), preview(op.New))
	}
	return ch.result(b.String() + "\n"), nil
}

func preview(s string) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
