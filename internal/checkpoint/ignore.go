package checkpoint

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tandem-agent/tandem/internal/projectfile"
)

// ignoreRule is one gitignore line.
type ignoreRule struct {
	base     string // folder of the .gitignore, relative to the root ("" = root)
	pattern  string
	kind     matchKind
	lit      string // the name (literal) or the suffix (suffix)
	negate   bool
	dirOnly  bool
	anchored bool // contains a slash: matched against the path, not the name
}

// matchKind lets the common patterns skip the glob matcher: the scan asks
// about every file, so this is its hot path.
type matchKind int

const (
	matchGlob    matchKind = iota
	matchLiteral           // a plain name: "node_modules"
	matchSuffix            // "*.log"
)

func classifyPattern(p string, anchored bool) (matchKind, string) {
	if anchored {
		return matchGlob, ""
	}
	if !strings.ContainsAny(p, `*?[\{`) {
		return matchLiteral, p
	}
	if strings.HasPrefix(p, "*") && !strings.ContainsAny(p[1:], `*?[\{`) {
		return matchSuffix, p[1:]
	}
	return matchGlob, ""
}

// ignorer answers "does the scan skip this path" with gitignore semantics:
// rules from the defaults, the config, .git/info/exclude and every
// .gitignore from the root down; the last matching rule wins.
type ignorer struct{ rules []ignoreRule }

func parseIgnoreLines(base string, lines []string) []ignoreRule {
	var out []ignoreRule
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		r := ignoreRule{base: base}
		if strings.HasPrefix(l, "!") {
			r.negate, l = true, l[1:]
		} else if strings.HasPrefix(l, `\`) {
			l = l[1:]
		}
		if strings.HasSuffix(l, "/") {
			r.dirOnly, l = true, strings.TrimSuffix(l, "/")
		}
		if strings.Contains(l, "/") {
			r.anchored, l = true, strings.TrimPrefix(l, "/")
		}
		if l == "" || !doublestar.ValidatePattern(l) {
			continue
		}
		r.pattern = l
		r.kind, r.lit = classifyPattern(l, r.anchored)
		out = append(out, r)
	}
	return out
}

// readIgnoreFile returns the lines of an ignore file of the workspace
// root. It is read as a project file (projectfile.Read): a FIFO would
// hang every scan, /dev/urandom behind a link exhaust memory. A missing
// file, or one refused so, has no lines.
func readIgnoreFile(root, p string) []string {
	if _, err := os.Lstat(p); err != nil {
		return nil // most folders have none: one system call
	}
	data, err := projectfile.Read(root, p, projectfile.IgnoreLimit)
	if err != nil {
		return nil
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// withDir returns the ignorer for the folder rel (relative to root), adding
// its .gitignore when it has one. The receiver is not changed.
func (ig *ignorer) withDir(root, rel string) *ignorer {
	lines := readIgnoreFile(root, filepath.Join(root, filepath.FromSlash(rel), ".gitignore"))
	if len(lines) == 0 {
		return ig
	}
	rules := make([]ignoreRule, len(ig.rules), len(ig.rules)+len(lines))
	copy(rules, ig.rules)
	return &ignorer{rules: append(rules, parseIgnoreLines(rel, lines)...)}
}

// ignored reports whether rel (slash-separated, relative to root; name is
// its last element) is skipped.
func (ig *ignorer) ignored(rel, name string, isDir bool) bool {
	out := false
	for _, r := range ig.rules {
		if r.dirOnly && !isDir {
			continue
		}
		if !r.negate == out {
			continue // cannot change the answer
		}
		sub := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			sub = rel[len(r.base)+1:]
		}
		var ok bool
		switch {
		case r.kind == matchLiteral:
			ok = name == r.lit
		case r.kind == matchSuffix:
			ok = strings.HasSuffix(name, r.lit)
		case r.anchored:
			ok, _ = doublestar.Match(r.pattern, sub)
		default:
			ok, _ = doublestar.Match(r.pattern, name)
		}
		if ok {
			out = !r.negate
		}
	}
	return out
}

// rootIgnorer builds the rules that apply from the root: defaults, config
// patterns, .git/info/exclude, the root .gitignore.
func rootIgnorer(root string, extra []string) *ignorer {
	ig := &ignorer{rules: parseIgnoreLines("", defaultIgnore)}
	ig.rules = append(ig.rules, parseIgnoreLines("", extra)...)
	ig.rules = append(ig.rules, parseIgnoreLines("", readIgnoreFile(root, filepath.Join(root, ".git", "info", "exclude")))...)
	return ig.withDir(root, "")
}
