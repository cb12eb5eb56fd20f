package permission

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// toolInput holds every field the engine reads from any tool's input.
type toolInput struct {
	Command string `json:"command"`
	// DisableSandbox is Bash's dangerouslyDisableSandbox (Claude Code's
	// name): run this command outside the OS sandbox.
	DisableSandbox bool   `json:"dangerouslyDisableSandbox"`
	FilePath       string `json:"file_path"`
	NotebookPath   string `json:"notebook_path"`
	Path           string `json:"path"`
	Pattern        string `json:"pattern"`
	URL            string `json:"url"`
	Content        string `json:"content"`
	OldString      string `json:"old_string"`
	NewString      string `json:"new_string"`
	ReplaceAll     bool   `json:"replace_all"`
	Skill          string `json:"skill"`         // Skill: Skill(name) rules
	SubagentType   string `json:"subagent_type"` // Agent/Task: Agent(type) rules
	Edits          []struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
}

func decodeInput(raw json.RawMessage) toolInput {
	var in toolInput
	_ = json.Unmarshal(raw, &in) // a malformed input is judged as empty; the tool reports the error
	return in
}

// fileLookup finds a tool by name for what it declares of itself
// (tool.FileAccessor, tool.ReadOnly, tool.Contained). The engine's comes
// from its caller (EngineOptions.Tools: the session's tools, the Claude
// Code CLI's, then tandem's built-in ones, internal/tools.Lookup), so this
// package names no tool.
type fileLookup = tool.Lookup

// kinds says whether the named tool's calls read or write files, as its
// declaration says of a call with no arguments (a declaration names the
// access even when the input names no path): what `Read` and `Edit`
// rules without a pattern, and --disallowedTools Read/Edit, cover. A
// tool that declares nothing, or whose declaration refuses an empty
// input, does neither.
func fileKinds(l fileLookup, name string) (read, write bool) {
	acc, ok := l.Files(name)
	if !ok {
		return false, false
	}
	accesses, err := acc.FileAccess(json.RawMessage(`{}`))
	if err != nil {
		return false, false
	}
	for _, a := range accesses {
		if a.Write {
			write = true
		} else {
			read = true
		}
	}
	return read, write
}
