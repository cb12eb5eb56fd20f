package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/permission/shell"
	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/tools/fs"
)

// summarize is the one-line description of a call for the prompt.
func summarize(tool string, in toolInput, workDir string) string {
	rel := func(p string) string {
		if r, err := filepath.Rel(workDir, p); err == nil && !strings.HasPrefix(r, "..") && filepath.IsAbs(p) {
			return r
		}
		return p
	}
	switch tool {
	case "Bash":
		return "Run `" + oneLine(in.Command, 200) + "`"
	case "Edit", "MultiEdit", "NotebookEdit":
		return "Edit " + rel(in.FilePath+in.NotebookPath)
	case "Write":
		if _, err := os.Stat(in.FilePath); err != nil {
			return "Create " + rel(in.FilePath)
		}
		return "Overwrite " + rel(in.FilePath)
	case "Read":
		return "Read " + rel(in.FilePath)
	case "Glob", "Grep":
		where := in.Path
		if where == "" {
			where = "."
		}
		return fmt.Sprintf("Search %s for %q", rel(where), in.Pattern)
	case "WebFetch":
		return "Fetch " + in.URL
	}
	if strings.HasPrefix(tool, "mcp__") {
		parts := strings.SplitN(strings.TrimPrefix(tool, "mcp__"), "__", 2)
		if len(parts) == 2 {
			return fmt.Sprintf("Call %s on MCP server %s", parts[1], parts[0])
		}
	}
	return "Use " + tool
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// arity says how many words name "the command" for programs whose first
// argument is a subcommand (`git push`, `npm run test`).
var arity = map[string]int{
	"git": 2, "npm": 2, "pnpm": 2, "yarn": 2, "go": 2, "cargo": 2, "docker": 2, "kubectl": 2,
	"make": 2, "pip": 2, "pip3": 2, "uv": 2, "poetry": 2, "gh": 3, "bundle": 2, "mvn": 2,
	"gradle": 2, "dotnet": 2, "terraform": 2, "helm": 2, "brew": 2, "apt": 2, "apt-get": 2,
	"systemctl": 2, "rustup": 2, "composer": 2, "mix": 2, "just": 2, "task": 2,
	"npm run": 3, "pnpm run": 3, "yarn run": 3, "docker compose": 3, "git stash": 3, "git remote": 3,
}

// destructive programs are suggested only with their exact arguments.
var destructive = map[string]bool{"rm": true, "rmdir": true, "dd": true, "chmod": true, "chown": true,
	"mkfs": true, "shred": true, "kill": true, "pkill": true, "killall": true, "truncate": true, "mv": true}

// bashSuggestion returns the rule "allow always" would save for c, or
// false when none may be learned (interpreters, wrappers, non-literal
// program names).
func bashSuggestion(c shell.Command) (Rule, bool) {
	if c.Wrapper || c.Program == "" || len(c.Argv) == 0 || c.Via != "" || c.Sensitive {
		// A sensitive read is never learned: `cat:*` would then read
		// ~/.ssh unasked, and even the exact argv (`cat environ`, `tr a b`
		// with its input redirected) reads another file in another folder.
		return Rule{}, false
	}
	argv := append([]string{c.Program}, c.Argv[1:]...)
	if destructive[c.Program] {
		return Rule{Permission: "Bash", Pattern: strings.Join(argv, " "), Action: ActionAllow}, true
	}
	n := 1
	for k := 3; k >= 2; k-- {
		if len(argv) >= k-1 {
			if a, ok := arity[strings.Join(argv[:k-1], " ")]; ok {
				n = a
				break
			}
		}
	}
	if n > len(argv) {
		n = len(argv)
	}
	for i := 1; i < n; i++ {
		if strings.HasPrefix(argv[i], "-") {
			n = i
			break
		}
	}
	return Rule{Permission: "Bash", Pattern: strings.Join(argv[:n], " ") + ":*", Action: ActionAllow}, true
}

// maxDiffBytes bounds the files a diff preview reads.
const maxDiffBytes = 1 << 20

// previewDiff is the diff an edit would make, computed by the same code
// the file tools apply (internal/tools/fs), so what the user approves is
// what gets written, tolerant matches and CRLF files included. It is empty
// when the edit would fail (the tool then reports why).
func previewDiff(tool string, in toolInput, workDir string) string {
	path := in.FilePath
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(workDir, path)
	}
	oldBytes, err := regular.ReadFile(path)
	if err != nil && !os.IsNotExist(err) || len(oldBytes) > maxDiffBytes {
		return ""
	}
	old := string(oldBytes)
	switch tool {
	case "Write":
		return fs.PlanWrite(path, old, in.Content)
	case "Edit":
		_, d, err := fs.PlanEdit(path, old, in.OldString, in.NewString, in.ReplaceAll)
		if err != nil {
			return ""
		}
		return d
	case "MultiEdit":
		edits := make([]fs.Replacement, len(in.Edits))
		for i, e := range in.Edits {
			edits[i] = fs.Replacement{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll}
		}
		_, d, err := fs.PlanEdits(path, old, edits)
		if err != nil {
			return ""
		}
		return d
	}
	return ""
}
