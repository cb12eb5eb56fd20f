package search

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// fileTypes mirrors ripgrep's built-in --type definitions for common
// languages, so that the Go search accepts the same names.
var fileTypes = map[string][]string{
	"c":        {"*.[chH]", "*.[chH].in", "*.cats"},
	"cpp":      {"*.[ChH]", "*.cc", "*.[ch]pp", "*.[ch]xx", "*.hh", "*.inl", "*.[ChH].in", "*.cc.in", "*.[ch]pp.in", "*.[ch]xx.in", "*.hh.in"},
	"cs":       {"*.cs"},
	"css":      {"*.css", "*.scss"},
	"go":       {"*.go"},
	"html":     {"*.ejs", "*.htm", "*.html"},
	"java":     {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":       {"*.cjs", "*.js", "*.jsx", "*.mjs", "*.vue"},
	"json":     {"*.json", "composer.lock"},
	"kotlin":   {"*.kt", "*.kts"},
	"lua":      {"*.lua"},
	"markdown": {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"md":       {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"php":      {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"proto":    {"*.proto"},
	"py":       {"*.py", "*.pyi"},
	"rb":       {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb"},
	"ruby":     {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb"},
	"rust":     {"*.rs"},
	"scala":    {"*.scala", "*.sbt"},
	"sh":       {"*.bash", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", "*.sh", "*.zsh", ".zshrc", ".zprofile", ".profile"},
	"sql":      {"*.sql", "*.psql"},
	"swift":    {"*.swift"},
	"toml":     {"*.toml", "Cargo.lock"},
	"ts":       {"*.cts", "*.mts", "*.ts", "*.tsx"},
	"txt":      {"*.txt"},
	"yaml":     {"*.yaml", "*.yml"},
}

func typeGlobs(name string) ([]string, error) {
	g, ok := fileTypes[name]
	if !ok {
		names := make([]string, 0, len(fileTypes))
		for n := range fileTypes {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("Grep: unknown file type %q; known types: %s (or use the glob parameter)", name, strings.Join(names, ", "))
	}
	return g, nil
}

// splitGlobs splits the glob parameter on whitespace and commas outside
// braces ("*.{ts,tsx} *.js" is two globs) and validates each.
func splitGlobs(s string) ([]string, error) {
	var out []string
	depth, startAt := 0, -1
	flush := func(end int) {
		if startAt >= 0 {
			out = append(out, s[startAt:end])
			startAt = -1
		}
	}
	for i, r := range s {
		switch {
		case r == '{':
			depth++
		case r == '}':
			depth = max(depth-1, 0)
		case depth == 0 && (r == ' ' || r == '\t' || r == '\n' || r == ','):
			flush(i)
			continue
		}
		if startAt < 0 {
			startAt = i
		}
	}
	flush(len(s))
	for _, g := range out {
		if !doublestar.ValidatePattern(strings.TrimPrefix(g, "!")) {
			return nil, fmt.Errorf("invalid input for Grep: glob %q is not a valid glob pattern", g)
		}
	}
	return out, nil
}

// fileFilter decides which walked files Grep searches, with ripgrep's glob
// rules: a glob without "/" matches the file name at any depth, one with
// "/" matches the path relative to the search root; a leading "!"
// excludes; when any positive glob is given a file must match one.
type fileFilter struct {
	include, exclude []string
	types            []string
}

func newFileFilter(globs []string, fileType string) (*fileFilter, error) {
	f := &fileFilter{}
	for _, g := range globs {
		if neg, ok := strings.CutPrefix(g, "!"); ok {
			f.exclude = append(f.exclude, neg)
		} else {
			f.include = append(f.include, g)
		}
	}
	if fileType != "" {
		t, err := typeGlobs(fileType)
		if err != nil {
			return nil, err
		}
		f.types = t
	}
	return f, nil
}

func globMatch(g, rel string) bool {
	g = strings.TrimPrefix(g, "/")
	if !strings.Contains(g, "/") {
		ok, _ := doublestar.Match(g, path.Base(rel))
		return ok
	}
	ok, _ := doublestar.Match(g, rel)
	return ok
}

// included reports whether a positive glob names rel.
func (f *fileFilter) included(rel string) bool {
	for _, g := range f.include {
		if globMatch(g, rel) {
			return true
		}
	}
	return false
}

func (f *fileFilter) allows(rel string) bool {
	for _, g := range f.exclude {
		if globMatch(g, rel) {
			return false
		}
	}
	if len(f.include) > 0 {
		ok := false
		for _, g := range f.include {
			if globMatch(g, rel) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(f.types) > 0 {
		base := path.Base(rel)
		for _, g := range f.types {
			if ok, _ := doublestar.Match(g, base); ok {
				return true
			}
		}
		return false
	}
	return true
}
