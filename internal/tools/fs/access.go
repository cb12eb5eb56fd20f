package fs

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// FileAccess declares the file Read reads (tool.FileAccessor).
func (*Read) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("file_path", false).FileAccess(input)
}

// FileAccess declares the file Write writes.
func (*Write) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("file_path", true).FileAccess(input)
}

// FileAccess declares the file Edit changes.
func (*Edit) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("file_path", true).FileAccess(input)
}

// FileAccess declares the file MultiEdit changes.
func (*MultiEdit) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("file_path", true).FileAccess(input)
}

// deref is *s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// PreviewWrite is the diff Write would show replacing current
// (tool.WritePreviewer).
func (*Write) PreviewWrite(input json.RawMessage, path, current string) (string, error) {
	var in writeInput
	if err := json.Unmarshal(input, &in); err != nil {
		return "", err
	}
	return PlanWrite(path, current, deref(in.Content)), nil
}

// PreviewWrite is the diff Edit would apply to current, by the same
// matcher cascade as Execute.
func (*Edit) PreviewWrite(input json.RawMessage, path, current string) (string, error) {
	var in editInput
	if err := json.Unmarshal(input, &in); err != nil {
		return "", err
	}
	_, d, err := PlanEdit(path, current, deref(in.OldString), deref(in.NewString), in.ReplaceAll)
	return d, err
}

// PreviewWrite is the diff MultiEdit's edits would apply to current.
func (*MultiEdit) PreviewWrite(input json.RawMessage, path, current string) (string, error) {
	var in multiEditInput
	if err := json.Unmarshal(input, &in); err != nil {
		return "", err
	}
	edits := make([]Replacement, len(in.Edits))
	for i, e := range in.Edits {
		edits[i] = Replacement{Old: deref(e.OldString), New: deref(e.NewString), ReplaceAll: e.ReplaceAll}
	}
	_, d, err := PlanEdits(path, current, edits)
	return d, err
}
