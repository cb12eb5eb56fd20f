package fs

import (
	"errors"
	"fmt"
)

// Replacement is one old→new edit, as Edit and MultiEdit take them.
type Replacement struct {
	Old, New   string
	ReplaceAll bool
}

// PlanEdit computes, without touching the disk, what Edit would write to
// the file at path whose current bytes are content ("" for a file that
// does not exist yet): the new bytes (line endings and BOM kept as the
// tool keeps them) and the unified diff the tool's result will carry. It
// runs the same matcher cascade and diff as Edit, so a permission preview
// built from it is what gets written.
func PlanEdit(path, content, old, new string, replaceAll bool) (newContent, diff string, err error) {
	return PlanEdits(path, content, []Replacement{{Old: old, New: new, ReplaceAll: replaceAll}})
}

// PlanEdits is PlanEdit for MultiEdit's list of edits, applied in order.
func PlanEdits(path, content string, edits []Replacement) (newContent, diff string, err error) {
	ops := make([]editOp, len(edits))
	for i, e := range edits {
		ops[i] = editOp(e)
	}
	doc := decodeDoc([]byte(content))
	after, _, msg := applyOps(doc.text, ops)
	if msg != "" {
		return "", "", errors.New(msg)
	}
	return string(doc.encode(after)), unifiedDiff(path, doc.text, after), nil
}

// PlanWrite is the diff Write shows for replacing content with newContent.
func PlanWrite(path, content, newContent string) string {
	return unifiedDiff(path, content, newContent)
}

// applyOps applies ops in order to LF text, all or nothing. The message is
// for the model.
func applyOps(text string, ops []editOp) (string, []applied, string) {
	var steps []applied
	for i, op := range ops {
		step, msg := applyEdit(text, op)
		if msg != "" {
			if len(ops) > 1 {
				msg = fmt.Sprintf("Edit %d of %d (edits[%d]) failed: %s\nNo edits were applied; the file is unchanged.", i+1, len(ops), i, msg)
			}
			return "", nil, msg
		}
		steps = append(steps, step)
		text = step.text
	}
	return text, steps, ""
}
