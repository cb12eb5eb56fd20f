package tui

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// completion is the popup above the editor: slash commands or files.
type completion struct {
	open  bool
	token string // what is being completed ("/mo", "@src/ma")
	items []compItem
	sel   int
}

type compItem struct{ label, desc, value string }

const compShown = 8

func (c *completion) close() { *c = completion{} }

func (c *completion) move(d int) {
	if len(c.items) == 0 {
		return
	}
	c.sel = (c.sel + d + len(c.items)) % len(c.items)
}

func (c *completion) chosen() (compItem, bool) {
	if !c.open || len(c.items) == 0 {
		return compItem{}, false
	}
	return c.items[c.sel], true
}

// fuzzyScore ranks candidate for query: every query rune must appear in
// order; consecutive runs, matches at word starts and in the base name
// score higher. ok is false when it does not match.
func fuzzyScore(query, candidate string) (score int, ok bool) {
	if query == "" {
		return 0, true
	}
	q := []rune(strings.ToLower(query))
	c := []rune(strings.ToLower(candidate))
	base := strings.LastIndex(candidate, "/") + 1
	qi, run, prev := 0, 0, -2
	for ci := 0; ci < len(c) && qi < len(q); ci++ {
		if c[ci] != q[qi] {
			continue
		}
		s := 1
		if ci == prev+1 {
			run++
			s += 3 * run
		} else {
			run = 0
		}
		if ci == 0 || !unicode.IsLetter(c[ci-1]) && !unicode.IsDigit(c[ci-1]) {
			s += 5
		}
		if ci >= base {
			s += 2
		}
		score += s
		prev = ci
		qi++
	}
	if qi < len(q) {
		return 0, false
	}
	return score*10 - len(c), true // shorter paths first among equals
}

// rank returns up to n candidates matching query, best first.
func rank(query string, candidates []string, n int) []string {
	type scored struct {
		s     string
		score int
	}
	var out []scored
	for _, c := range candidates {
		if sc, ok := fuzzyScore(query, c); ok {
			out = append(out, scored{c, sc})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	res := make([]string, 0, min(n, len(out)))
	for i := 0; i < len(out) && i < n; i++ {
		res = append(res, out[i].s)
	}
	return res
}

// skipDirs are never offered for @ mentions: generated or vendored trees
// that would drown the project's own files.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true, "vendor": true, ".venv": true, "__pycache__": true, ".tandem": false}

const maxFiles = 20000

// listFiles walks root for @ completion (relative paths, folders with a
// trailing slash), stopping at maxFiles.
func listFiles(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= maxFiles {
			if d != nil && d.IsDir() && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if p == root {
			return nil
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			out = append(out, rel+"/")
			return nil
		}
		out = append(out, rel)
		return nil
	})
	return out
}
