package search

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tandem-agent/tandem/internal/projectfile"
)

// ignoreRule is one line of a .gitignore, .ignore or info/exclude file,
// turned into a glob the way ripgrep turns it, so that the Go engine and rg
// agree. A rule matches an entry's own path only, never its parents': the
// walk does not enter ignored folders, and a search root inside a folder
// that its repository ignores is still searched, as rg does.
type ignoreRule struct {
	dir     string // the ignore file's folder relative to the walk's base, "" or ending in "/"
	glob    string // doublestar pattern matched against the path relative to dir
	negate  bool   // "!pattern": brings back what an earlier rule ignored
	dirOnly bool   // "pattern/": folders only
}

// parseIgnoreLine turns one line into a rule; ok is false for blank lines,
// comments and invalid patterns (which rg skips too).
func parseIgnoreLine(line, dir string) (r ignoreRule, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	if strings.HasPrefix(line, "#") {
		return r, false
	}
	if !strings.HasSuffix(line, `\ `) {
		line = strings.TrimRight(line, " \t")
	}
	if line == "" {
		return r, false
	}
	anchored := false
	if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	} else {
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		}
		if strings.HasPrefix(line, "/") {
			line = line[1:]
			anchored = true
		}
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimSuffix(strings.TrimSuffix(line, "/"), `\`)
	}
	if line == "" {
		return r, false
	}
	// A pattern without a slash matches a name at any depth; with one, the
	// whole path below the ignore file's folder.
	if !anchored && !strings.Contains(line, "/") && !strings.HasPrefix(line, "**/") {
		line = "**/" + line
	}
	// "dir/**" matches what is inside dir, not dir itself.
	if strings.HasSuffix(line, "/**") {
		line += "/*"
	}
	if !doublestar.ValidatePattern(line) {
		return r, false
	}
	r.dir, r.glob = dir, line
	return r, true
}

// match reports whether r applies to rel (relative to the walk's base).
func (r ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if !strings.HasPrefix(rel, r.dir) || len(rel) == len(r.dir) {
		return false
	}
	ok, _ := doublestar.Match(r.glob, rel[len(r.dir):])
	return ok
}

// ignored applies rules last-first: the deepest, latest matching rule wins.
func ignored(rules []ignoreRule, rel string, isDir bool) bool {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].match(rel, isDir) {
			return !rules[i].negate
		}
	}
	return false
}

// readIgnoreFile parses the rules of one ignore file; dir is its folder
// relative to the walk's base ("" or ending in "/"). A missing file has
// none; so has one that is not read as a project file of its repository
// (a link out of it, a FIFO, over projectfile.IgnoreLimit), as rg skips an
// unreadable one.
func readIgnoreFile(path, dir string) []ignoreRule {
	data, err := projectfile.Read(filepath.Dir(path), path, projectfile.IgnoreLimit)
	if err != nil {
		return nil
	}
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if r, ok := parseIgnoreLine(sc.Text(), dir); ok {
			rules = append(rules, r)
		}
	}
	return rules
}
