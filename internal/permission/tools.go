package permission

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// harmlessTools change nothing outside tandem and touch no files.
var harmlessTools = map[string]bool{
	"TodoWrite": true, "TodoRead": true, "BashOutput": true, "KillShell": true, "KillBash": true,
	"ListMcpResources": true, "ListMcpResourcesTool": true, "ReadMcpResource": true, "ReadMcpResourceTool": true,
	"WebSearch": true, "Task": true, "Agent": true, "ExitPlanMode": true, "AskUserQuestion": true,
}

// toolInput holds every field the engine reads from any tool's input.
type toolInput struct {
	Command      string `json:"command"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	Pattern      string `json:"pattern"`
	URL          string `json:"url"`
	Content      string `json:"content"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	ReplaceAll   bool   `json:"replace_all"`
	Skill        string `json:"skill"`         // Skill: Skill(name) rules
	SubagentType string `json:"subagent_type"` // Agent/Task: Agent(type) rules
	Edits        []struct {
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

// filePaths returns the paths a file tool touches, and whether it writes.
// ok is false for tools that are not file tools.
func filePaths(tool string, in toolInput, workDir string) (paths []string, write bool, ok bool) {
	switch tool {
	case "Read", "NotebookRead":
		return []string{in.FilePath + in.NotebookPath}, false, true
	case "Write", "Edit", "MultiEdit":
		return []string{in.FilePath}, true, true
	case "NotebookEdit":
		return []string{in.NotebookPath + in.FilePath}, true, true
	case "Glob", "Grep", "LS":
		p := in.Path
		if p == "" {
			p = workDir
		}
		paths = []string{p}
		if tool == "Glob" && filepath.IsAbs(in.Pattern) {
			paths = append(paths, globPrefix(in.Pattern))
		}
		if tool == "Glob" && strings.Contains(in.Pattern, "..") {
			paths = append(paths, globPrefix(filepath.Join(p, in.Pattern)))
		}
		return paths, false, true
	}
	return nil, false, false
}

// globPrefix is the folder part of a glob before its first wildcard.
func globPrefix(g string) string {
	i := strings.IndexAny(g, "*?[{")
	if i < 0 {
		return g
	}
	return filepath.Dir(g[:i] + "x")
}
