package permission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/permission/shell"
	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/tool"
)

// summarize is the one-line description of a call for the prompt. A
// file tool's comes from what it declares of the files the call touches
// (tool.FileAccessor), whatever its name: the first path it writes (or,
// writing none, reads).
func summarize(name string, raw json.RawMessage, in toolInput, workDir string, files fileLookup) string {
	rel := func(p string) string {
		if r, err := filepath.Rel(workDir, p); err == nil && !strings.HasPrefix(r, "..") && filepath.IsAbs(p) {
			return r
		}
		return p
	}
	switch name {
	case "Bash":
		return "Run `" + oneLine(in.Command, 200) + "`"
	case "WebFetch":
		return "Fetch " + in.URL
	}
	if a, ok := firstAccess(files, name, raw); ok {
		abs := a.Path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(workDir, abs)
		}
		switch {
		case a.Write:
			if _, err := os.Stat(abs); err != nil {
				return "Create " + rel(a.Path)
			}
			return "Edit " + rel(a.Path)
		case a.Folder && in.Pattern != "":
			return fmt.Sprintf("Search %s for %q", rel(a.Path), in.Pattern)
		case a.Folder:
			return "List " + rel(a.Path)
		}
		return "Read " + rel(a.Path)
	}
	if strings.HasPrefix(name, "mcp__") {
		parts := strings.SplitN(strings.TrimPrefix(name, "mcp__"), "__", 2)
		if len(parts) == 2 {
			return fmt.Sprintf("Call %s on MCP server %s", parts[1], parts[0])
		}
	}
	return "Use " + name
}

// firstAccess is the first path the named tool declares the call writes,
// else the first it reads.
func firstAccess(files fileLookup, name string, raw json.RawMessage) (tool.Access, bool) {
	acc, ok := files.Files(name)
	if !ok {
		return tool.Access{}, false
	}
	accesses, err := acc.FileAccess(raw)
	if err != nil || len(accesses) == 0 {
		return tool.Access{}, false
	}
	for _, a := range accesses {
		if a.Write && a.Path != "" {
			return a, true
		}
	}
	return accesses[0], accesses[0].Path != ""
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

// previewDiff is the diff a call would make to the file its tool
// declares it writes, as the tool's declaration computes it
// (tool.WritePreviewer; tandem's file tools plan with the code they
// apply, internal/tools/fs, so what the user approves is what gets
// written, tolerant matches and CRLF files included). It is empty when
// the tool previews nothing or the call would fail (the tool then
// reports why).
func previewDiff(name string, raw json.RawMessage, workDir string, files fileLookup) string {
	a, ok := firstAccess(files, name, raw)
	if !ok || !a.Write {
		return ""
	}
	t, _ := files.Find(name)
	pv, ok := tool.Unwrapped[tool.WritePreviewer](t)
	if !ok {
		return ""
	}
	path := a.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(workDir, path)
	}
	oldBytes, err := regular.ReadFile(path)
	if err != nil && !os.IsNotExist(err) || len(oldBytes) > maxDiffBytes {
		return ""
	}
	d, err := pv.PreviewWrite(raw, path, string(oldBytes))
	if err != nil {
		return ""
	}
	return d
}
