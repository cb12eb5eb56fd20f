package acp

import (
	"cmp"
	"encoding/json"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/tool"
)

// toolInfo is how a tool call is shown in an editor.
type toolInfo struct {
	kind      acpsdk.ToolKind
	title     string
	locations []acpsdk.ToolCallLocation
}

// describeTool names a call the way a user reads it, as the tool declares
// it (tool.Kinded, tool.Summarizer) and at the first path it declares it
// touches (tool.FileAccessor; not the working folder a search defaults
// to). A tool that declares nothing (MCP) keeps its name.
func describeTool(tools tool.Lookup, name string, input json.RawMessage) toolInfo {
	t, ok := tools.Find(name)
	if !ok {
		return toolInfo{kind: acpsdk.ToolKindOther, title: name}
	}
	info := toolInfo{kind: acpsdk.ToolKind(tool.KindOf(t)), title: cmp.Or(tool.SummaryOf(t, input), name)}
	if acc, ok := tool.AccessorOf(t); ok {
		if as, err := acc.FileAccess(input); err == nil && len(as) > 0 && as[0].Path != "" && !(as[0].Folder && as[0].Path == ".") {
			info.locations = []acpsdk.ToolCallLocation{{Path: as[0].Path}}
		}
	}
	return info
}

// diffs shows an edit as ACP diff content: the replaced text and its
// replacement, or a written file's new content, as the tool declares them
// (tool.ChangeDescriber).
func diffs(tools tool.Lookup, name string, input json.RawMessage) []acpsdk.ToolCallContent {
	t, ok := tools.Find(name)
	if !ok {
		return nil
	}
	var out []acpsdk.ToolCallContent
	for _, c := range tool.TextChangesOf(t, input) {
		if c.Whole {
			out = append(out, acpsdk.ToolDiffContent(c.Path, c.New))
		} else {
			out = append(out, acpsdk.ToolDiffContent(c.Path, c.New, c.Old))
		}
	}
	return out
}
