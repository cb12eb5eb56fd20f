package acp

import (
	"cmp"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"
)

// toolInfo is how a tool call is shown in an editor.
type toolInfo struct {
	kind      acpsdk.ToolKind
	title     string
	locations []acpsdk.ToolCallLocation
}

// describeTool names a call the way a user reads it: the command, the file,
// the pattern. Unknown tools (MCP) keep their name.
func describeTool(name string, in map[string]any) toolInfo {
	str := func(k string) string { s, _ := in[k].(string); return s }
	at := func(p string) []acpsdk.ToolCallLocation {
		if p == "" {
			return nil
		}
		return []acpsdk.ToolCallLocation{{Path: p}}
	}
	switch name {
	case "Read":
		return toolInfo{acpsdk.ToolKindRead, "Read " + str("file_path"), at(str("file_path"))}
	case "Write":
		return toolInfo{acpsdk.ToolKindEdit, "Write " + str("file_path"), at(str("file_path"))}
	case "Edit", "MultiEdit":
		return toolInfo{acpsdk.ToolKindEdit, "Edit " + str("file_path"), at(str("file_path"))}
	case "Bash":
		return toolInfo{kind: acpsdk.ToolKindExecute, title: cmp.Or(str("command"), "Bash")}
	case "BashOutput", "KillShell":
		return toolInfo{kind: acpsdk.ToolKindExecute, title: name + " " + str("bash_id") + str("shell_id")}
	case "Glob":
		return toolInfo{kind: acpsdk.ToolKindSearch, title: "Find " + str("pattern"), locations: at(str("path"))}
	case "Grep":
		return toolInfo{kind: acpsdk.ToolKindSearch, title: fmt.Sprintf("Search %q", str("pattern")), locations: at(str("path"))}
	case "WebFetch":
		return toolInfo{kind: acpsdk.ToolKindFetch, title: "Fetch " + str("url")}
	case "WebSearch":
		return toolInfo{kind: acpsdk.ToolKindFetch, title: "Search the web: " + str("query")}
	case "TodoWrite":
		return toolInfo{kind: acpsdk.ToolKindThink, title: "Update the plan"}
	}
	return toolInfo{kind: acpsdk.ToolKindOther, title: name}
}

// diffs shows a finished edit as ACP diff content: the replaced text and
// its replacement, or a written file's new content.
func diffs(name string, in map[string]any) []acpsdk.ToolCallContent {
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	path := str(in, "file_path")
	if path == "" {
		return nil
	}
	switch name {
	case "Write":
		return []acpsdk.ToolCallContent{acpsdk.ToolDiffContent(path, str(in, "content"))}
	case "Edit":
		return []acpsdk.ToolCallContent{acpsdk.ToolDiffContent(path, str(in, "new_string"), str(in, "old_string"))}
	case "MultiEdit":
		edits, _ := in["edits"].([]any)
		var out []acpsdk.ToolCallContent
		for _, e := range edits {
			if m, ok := e.(map[string]any); ok {
				out = append(out, acpsdk.ToolDiffContent(path, str(m, "new_string"), str(m, "old_string")))
			}
		}
		return out
	}
	return nil
}
