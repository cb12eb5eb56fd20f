package fs

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// What the file tools say of themselves to front ends (tool.Kinded,
// tool.Summarizer, tool.ChangeDescriber).

func (*Read) Kind() tool.Kind      { return tool.KindRead }
func (*Write) Kind() tool.Kind     { return tool.KindEdit }
func (*Edit) Kind() tool.Kind      { return tool.KindEdit }
func (*MultiEdit) Kind() tool.Kind { return tool.KindEdit }

func (*Read) Summary(input json.RawMessage) string  { return "Read " + tool.Str(input, "file_path") }
func (*Write) Summary(input json.RawMessage) string { return "Write " + tool.Str(input, "file_path") }
func (*Edit) Summary(input json.RawMessage) string  { return "Edit " + tool.Str(input, "file_path") }
func (*MultiEdit) Summary(input json.RawMessage) string {
	return "Edit " + tool.Str(input, "file_path")
}

// TextChanges: the file's new content.
func (*Write) TextChanges(input json.RawMessage) []tool.TextChange {
	p := tool.Str(input, "file_path")
	if p == "" {
		return nil
	}
	return []tool.TextChange{{Path: p, New: tool.Str(input, "content"), Whole: true}}
}

// TextChanges: old_string replaced by new_string.
func (*Edit) TextChanges(input json.RawMessage) []tool.TextChange {
	p := tool.Str(input, "file_path")
	if p == "" {
		return nil
	}
	return []tool.TextChange{{Path: p, Old: tool.Str(input, "old_string"), New: tool.Str(input, "new_string")}}
}

// TextChanges: each edit's old_string replaced by its new_string.
func (*MultiEdit) TextChanges(input json.RawMessage) []tool.TextChange {
	p := tool.Str(input, "file_path")
	if p == "" {
		return nil
	}
	var in struct {
		Edits []json.RawMessage `json:"edits"`
	}
	_ = json.Unmarshal(input, &in) // a malformed input shows no change; the tool reports it
	var out []tool.TextChange
	for _, e := range in.Edits {
		out = append(out, tool.TextChange{Path: p, Old: tool.Str(e, "old_string"), New: tool.Str(e, "new_string")})
	}
	return out
}
