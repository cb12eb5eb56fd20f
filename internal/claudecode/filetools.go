package claudecode

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// FileTool is what the Claude Code CLI's own tools that tandem has no tool
// of its own for declare of the files a call touches (tool.FileAccessor),
// by name: the one table of them. Its Read, Write, Edit, MultiEdit, Glob
// and Grep take the inputs tandem's tools of those names take, and are
// judged by those tools' declarations.
func FileTool(name string) (tool.FileAccessor, bool) {
	switch name {
	case "NotebookEdit":
		return tool.PathField("notebook_path", true), true
	case "NotebookRead":
		return tool.PathField("notebook_path", false), true
	case "LS":
		return tool.AccessFunc(func(input json.RawMessage) ([]tool.Access, error) {
			p, err := tool.StringField(input, "path")
			if p == "" {
				p = "."
			}
			return []tool.Access{{Path: p, Folder: true}}, err
		}), true
	}
	return nil, false
}
