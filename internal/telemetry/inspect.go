//go:build !notelemetry

package telemetry

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// What a tool call did, read from its input and its result's diff.

// commitRe and prRe find a git commit and a GitHub pull request made by a
// Bash command (anywhere in a pipeline or list). Compiled on first use: at
// init they would cost every start of tandem, telemetry on or off.
var (
	commitRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[;&|(\s])git(\s+-[^\s]+(\s+[^-\s][^\s]*)?)*\s+commit(\s|$)`)
	})
	prRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[;&|(\s])gh\s+pr\s+create(\s|$)`) })
)

func isCommit(cmd string) bool      { return commitRe().MatchString(cmd) }
func isPullRequest(cmd string) bool { return prRe().MatchString(cmd) }

// bashCommand is a Bash call's command.
func bashCommand(input []byte) string {
	var in struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(input, &in)
	return in.Command
}

// filePath is a file tool's path.
func filePath(input []byte) string {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	_ = json.Unmarshal(input, &in)
	return firstSet(in.FilePath, in.NotebookPath)
}

// language names a file's language by its extension, as Claude Code's
// code_edit_tool.decision does ("" extension: "unknown").
func language(path string) string {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".go":
		return "Go"
	case ".py":
		return "Python"
	case ".ts", ".tsx":
		return "TypeScript"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "JavaScript"
	case ".rs":
		return "Rust"
	case ".java":
		return "Java"
	case ".c", ".h":
		return "C"
	case ".cc", ".cpp", ".hpp", ".cxx":
		return "C++"
	case ".rb":
		return "Ruby"
	case ".md":
		return "Markdown"
	case ".json":
		return "JSON"
	case ".yaml", ".yml":
		return "YAML"
	case ".sh", ".bash":
		return "Shell"
	case "":
		return "unknown"
	default:
		return strings.TrimPrefix(ext, ".")
	}
}

// diffLines counts a unified diff's added and removed lines.
func diffLines(diff string) (added, removed int64) {
	for line := range strings.SplitSeq(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			added++
		case strings.HasPrefix(line, "-"):
			removed++
		}
	}
	return added, removed
}
