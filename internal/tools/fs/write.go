package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

//go:embed write.md
var writeDescription string

// maxWriteBytes bounds one Write.
const maxWriteBytes = 16 << 20

const writeSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The absolute path to the file to write (must be absolute, not relative)"},
    "content": {"type": "string", "description": "The content to write to the file"}
  },
  "required": ["file_path", "content"],
  "additionalProperties": false
}`

// Write is the Write tool: create a file or replace it whole.
type Write struct{}

// NewWrite returns the Write tool.
func NewWrite() *Write { return &Write{} }

func (*Write) Name() string            { return "Write" }
func (*Write) Description() string     { return writeDescription }
func (*Write) Schema() json.RawMessage { return json.RawMessage(writeSchema) }

type writeInput struct {
	FilePath string  `json:"file_path"`
	Content  *string `json:"content"`
}

func (*Write) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil || call.Env.State == nil {
		return tool.Result{}, errors.New("Write: tool call without a session Env")
	}
	var in writeInput
	if err := tool.DecodeInput("Write", call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString("Write", "file_path", in.FilePath); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	switch {
	case in.Content == nil:
		return tool.ErrorResult(`invalid input for Write: the required parameter "content" is missing (use "" for an empty file)`), nil
	case len(*in.Content) > maxWriteBytes:
		return tool.ErrorResult(fmt.Sprintf("invalid input for Write: content is %s; the limit is %s", humanSize(int64(len(*in.Content))), humanSize(maxWriteBytes))), nil
	case containsNUL(*in.Content):
		return tool.ErrorResult("invalid input for Write: content contains a NUL byte; Write only writes text files"), nil
	}
	abs, real, msg := resolveForTool(call.Env, "Write", in.FilePath)
	if msg != "" {
		return tool.ErrorResult(msg), nil
	}
	unlock := LocksFrom(call.Env).Lock(real)
	defer unlock()
	return writeLocked(ctx, call.Env, in.FilePath, abs, real, *in.Content), nil
}

func writeLocked(ctx context.Context, env *tool.Env, given, abs, real, content string) tool.Result {
	where := abs + relNote(given, abs)
	before, created := "", true
	info, err := os.Stat(real)
	switch {
	case err == nil && info.IsDir():
		return tool.ErrorResult(fmt.Sprintf("%s is a directory; Write needs a file path inside it.", abs))
	case err == nil && !info.Mode().IsRegular():
		return tool.ErrorResult(fmt.Sprintf("%s is not a regular file (%s); Write only writes regular files.", abs, info.Mode().Type()))
	case err == nil:
		raw, err := env.FileSystem().ReadFile(ctx, real)
		if err != nil {
			return tool.ErrorResult(fmt.Sprintf("Cannot read %s before overwriting it: %v", abs, err))
		}
		if msg := TrackerFrom(env).CheckFresh(real, info, raw); msg != "" {
			return tool.ErrorResult(msg)
		}
		before, created = string(raw), false
	case !errors.Is(err, os.ErrNotExist):
		return tool.ErrorResult(fmt.Sprintf("Cannot access %s: %v", abs, err))
	}
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		return tool.ErrorResult(fmt.Sprintf("Cannot create the folder for %s: %v", abs, err))
	}
	if msg := writeTracked(ctx, env, real, []byte(content)); msg != "" {
		return tool.ErrorResult(fmt.Sprintf("Cannot write %s: %s", abs, msg))
	}
	lines := strings.Count(content, "\n")
	if content != "" && !strings.HasSuffix(content, "\n") {
		lines++
	}
	meta := map[string]any{"file_path": abs, "created": created, "bytes": len(content), "lines": lines}
	if created {
		return tool.Result{Content: fmt.Sprintf("File created successfully at: %s (%d lines).", where, lines), Meta: meta}
	}
	diff := unifiedDiff(abs, before, content)
	meta["additions"], meta["deletions"] = diffStats(diff)
	return tool.Result{Content: fmt.Sprintf("The file %s has been overwritten (%d lines).", where, lines), Diff: diff, Meta: meta}
}
