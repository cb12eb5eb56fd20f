// Package search provides the Glob and Grep tools, with Claude Code's names
// and input schemas. Both honour .gitignore (nested files too), .ignore and
// .git/info/exclude, include hidden files, skip .git and do not follow
// symbolic links, as ripgrep does.
package search

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreFiles are read in every folder, later ones taking precedence.
var ignoreFiles = []string{".gitignore", ".ignore"}

// walker lists the files under root that ignore rules do not exclude.
type walker struct {
	root string
	// base is the folder ignore patterns are relative to: the enclosing git
	// repository's top, or root when there is none.
	base      string
	baseParts []string // path of root relative to base, split
	inherited []gitignore.Pattern
	// unignore, when set, brings back ignored files it accepts: ripgrep's
	// --glob "always overrides any other ignore logic".
	unignore func(rel string) bool
}

// newWalker prepares a walk of root (an absolute, clean folder), loading the
// ignore rules of the enclosing repository's folders above root.
func newWalker(root string) *walker {
	w := &walker{root: root, base: root}
	top := repoTop(root)
	if top == "" {
		return w
	}
	w.base = top
	if rel, err := filepath.Rel(top, root); err == nil && rel != "." {
		w.baseParts = strings.Split(filepath.ToSlash(rel), "/")
	}
	w.inherited = readPatternFile(filepath.Join(top, ".git", "info", "exclude"), nil)
	for i := range w.baseParts {
		dir := filepath.Join(append([]string{top}, w.baseParts[:i]...)...)
		w.inherited = append(w.inherited, readIgnores(dir, w.baseParts[:i])...)
	}
	return w
}

// repoTop returns the nearest folder at or above dir holding .git, or "".
func repoTop(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func readIgnores(dir string, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, name := range ignoreFiles {
		ps = append(ps, readPatternFile(filepath.Join(dir, name), domain)...)
	}
	return ps
}

func readPatternFile(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, append([]string(nil), domain...)))
	}
	return ps
}

// ignored applies patterns last-first: the deepest, latest rule wins.
func ignored(ps []gitignore.Pattern, parts []string, isDir bool) bool {
	for i := len(ps) - 1; i >= 0; i-- {
		switch ps[i].Match(parts, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// visitFunc gets each file's absolute path, its slash-separated path
// relative to the walk's root, and its directory entry.
type visitFunc func(path, rel string, d fs.DirEntry) error

// walk calls visit for every file that is not ignored, in lexical order.
// Returning fs.SkipAll from visit ends the walk early without error.
func (w *walker) walk(ctx context.Context, visit visitFunc) error {
	err := w.dir(ctx, w.root, "", append([]string(nil), w.baseParts...), w.inherited, visit)
	if err == fs.SkipAll {
		return nil
	}
	return err
}

func (w *walker) dir(ctx context.Context, dir, rel string, parts []string, inherited []gitignore.Pattern, visit visitFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable folders are skipped, as rg does
	}
	ps := inherited
	if own := readIgnores(dir, parts); len(own) > 0 {
		ps = append(append([]gitignore.Pattern(nil), inherited...), own...)
	}
	for _, e := range entries {
		name := e.Name()
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 || (typ.IsDir() && name == ".git") {
			continue
		}
		if !typ.IsDir() && !typ.IsRegular() {
			continue
		}
		childParts := append(parts[:len(parts):len(parts)], name)
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		if ignored(ps, childParts, typ.IsDir()) && (typ.IsDir() || w.unignore == nil || !w.unignore(childRel)) {
			continue
		}
		path := filepath.Join(dir, name)
		if typ.IsDir() {
			if err := w.dir(ctx, path, childRel, childParts, ps, visit); err != nil {
				return err
			}
			continue
		}
		if err := visit(path, childRel, e); err != nil {
			return err
		}
	}
	return nil
}
