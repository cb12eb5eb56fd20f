package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/projectfile"
)

// CLAUDE.md files may import other files with `@path` (Claude Code's
// syntax): relative to the importing file, `@~/x` from the home folder,
// never inside code spans or fenced blocks, at most maxImportDepth deep.
// An import from a project file obeys the same rule as the file itself:
// its real path must be inside the repository (`@~/.ssh/id_rsa` in a
// cloned CLAUDE.md is skipped with a warning). The user's own global file
// may import anything.
const (
	maxImportDepth = 5
	maxImports     = 20
)

var importRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?:^|\\s)@([^\\s`]+)") })
var codeSpan = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`]*`") })

// importsOf lists the paths a file's text imports, resolved against the
// importing file's folder.
func (b Builder) importsOf(text, file string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range importRef().FindAllStringSubmatch(codeSpan().ReplaceAllString(line, ""), -1) {
			p := strings.TrimRight(m[1], ".,;:)")
			switch {
			case p == "~" || strings.HasPrefix(p, "~/"):
				if b.Home == "" {
					continue
				}
				p = filepath.Join(b.Home, p[1:])
			case !filepath.IsAbs(p):
				p = filepath.Join(filepath.Dir(file), p)
			}
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// withImports returns the sections for a file's imports (and theirs),
// each read under the same containment rule (within, nil for none).
func (b Builder) withImports(text, file string, within *projectfile.Root) []string {
	var parts []string
	seen := map[string]bool{file: true}
	var walk func(text, file string, depth int)
	walk = func(text, file string, depth int) {
		for _, p := range b.importsOf(text, file) {
			if seen[p] || len(seen) > maxImports {
				continue
			}
			seen[p] = true
			if _, err := os.Lstat(p); err != nil {
				continue // `@name` that is not a file: a mention, not an import
			}
			if depth >= maxImportDepth {
				b.warn(fmt.Sprintf("Skipped import %s in %s: imports nest more than %d deep.", p, file, maxImportDepth))
				continue
			}
			s := b.read(p, within)
			if s == "" {
				continue
			}
			parts = append(parts, fmt.Sprintf("## Imported by %s (%s)\n%s", file, p, s))
			walk(s, p, depth+1)
		}
	}
	walk(text, file, 0)
	return parts
}

// importsAllowed: only CLAUDE*.md files import, as in Claude Code.
func importsAllowed(path string) bool {
	return strings.HasPrefix(filepath.Base(path), "CLAUDE")
}
