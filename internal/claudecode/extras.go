package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"
)

// toolUseResult holds the parts of the CLI's structured tool output that
// tandem's tool_result events carry (see sdk-tools.d.ts for the shapes).
type toolUseResult struct {
	FilePath        string `json:"filePath"`
	StructuredPatch []struct {
		OldStart int      `json:"oldStart"`
		OldLines int      `json:"oldLines"`
		NewStart int      `json:"newStart"`
		NewLines int      `json:"newLines"`
		Lines    []string `json:"lines"`
	} `json:"structuredPatch"`
	Interrupted *bool `json:"interrupted"`
	File        *struct {
		FilePath string `json:"filePath"`
	} `json:"file"`
}

// resultExtras derives the diff and the meta of a tool_result event from
// tool_use_result, so that edits show the same preview as under the native
// runtime.
func resultExtras(raw json.RawMessage) (string, map[string]any) {
	if len(raw) == 0 || raw[0] != '{' {
		return "", nil
	}
	var r toolUseResult
	if json.Unmarshal(raw, &r) != nil {
		return "", nil
	}
	meta := map[string]any{}
	path := r.FilePath
	if path == "" && r.File != nil {
		path = r.File.FilePath
	}
	if path != "" {
		meta["file_path"] = path
	}
	if r.Interrupted != nil && *r.Interrupted {
		meta["interrupted"] = true
	}
	var diff strings.Builder
	if len(r.StructuredPatch) > 0 {
		fmt.Fprintf(&diff, "--- %s\n+++ %s\n", path, path)
		for _, h := range r.StructuredPatch {
			fmt.Fprintf(&diff, "@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
			for _, l := range h.Lines {
				diff.WriteString(l)
				diff.WriteByte('\n')
			}
		}
	}
	if len(meta) == 0 {
		meta = nil
	}
	return diff.String(), meta
}
