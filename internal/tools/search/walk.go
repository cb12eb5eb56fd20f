// Package search provides the Glob and Grep tools, with Claude Code's names
// and input schemas. Both honour .gitignore (nested files too), .ignore and
// .git/info/exclude, include hidden files, skip .git and do not follow
// symbolic links, as ripgrep does.
package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ignoreFiles are read in every folder, later ones taking precedence.
var ignoreFiles = []string{".gitignore", ".ignore"}

// walker lists the files under root that ignore rules do not exclude.
type walker struct {
	root string
	// baseRel is root's slash-separated path relative to the folder ignore
	// patterns are relative to: the enclosing git repository's top, or root
	// itself ("") when there is none.
	baseRel   string
	inherited []ignoreRule
	// unignore, when set, brings back ignored files it accepts: ripgrep's
	// --glob "always overrides any other ignore logic".
	unignore func(rel string) bool
	// onGit, when set, hears of each .git folder the walk skips (rel is
	// its path relative to root); an error from it ends the walk.
	onGit func(rel string) error
}

// newWalker prepares a walk of root (an absolute, clean folder), loading the
// ignore rules of the enclosing repository's folders above root. Those rules
// apply to the entries below root only: root itself and the folders between
// it and the repository's top are never tested, so a folder the repository
// ignores can still be searched by naming it, as with rg.
func newWalker(root string) *walker {
	w := &walker{root: root}
	top := repoTop(root)
	if top == "" {
		return w
	}
	var parts []string
	if rel, err := filepath.Rel(top, root); err == nil && rel != "." {
		w.baseRel = filepath.ToSlash(rel)
		parts = strings.Split(w.baseRel, "/")
	}
	w.inherited = readIgnoreFile(filepath.Join(top, ".git", "info", "exclude"), "")
	for i := range parts {
		dir := filepath.Join(append([]string{top}, parts[:i]...)...)
		w.inherited = append(w.inherited, readIgnores(dir, slashDir(strings.Join(parts[:i], "/")))...)
	}
	return w
}

// slashDir turns a relative folder into a rule's dir: "" or "a/b/".
func slashDir(rel string) string {
	if rel == "" {
		return ""
	}
	return rel + "/"
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

// readIgnores reads the ignore files of folder dir, whose path relative to
// the walk's base is relDir ("" or ending in "/").
func readIgnores(dir, relDir string) []ignoreRule {
	return readListedIgnores(dir, relDir, nil)
}

// readListedIgnores is readIgnores for a folder whose entries were listed
// (nil: not listed): only ignore files the listing holds are opened, which
// spares two failing opens in most folders of a walk.
func readListedIgnores(dir, relDir string, entries []fs.DirEntry) []ignoreRule {
	var rules []ignoreRule
	for _, name := range ignoreFiles {
		if entries != nil && !listed(entries, name) {
			continue
		}
		rules = append(rules, readIgnoreFile(filepath.Join(dir, name), relDir)...)
	}
	return rules
}

// listed reports whether entries (sorted by name, as os.ReadDir returns
// them) hold name.
func listed(entries []fs.DirEntry, name string) bool {
	_, ok := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
	return ok
}

// visitFunc gets each file's absolute path, its slash-separated path
// relative to the walk's root, and its directory entry.
type visitFunc func(path, rel string, d fs.DirEntry) error

// walk calls visit for every file that is not ignored, in lexical order.
// Returning fs.SkipAll from visit ends the walk early without error.
func (w *walker) walk(ctx context.Context, visit visitFunc) error {
	err := w.dir(ctx, w.root, "", w.inherited, visit)
	if err == fs.SkipAll {
		return nil
	}
	return err
}

// dir walks one folder; rel is its path relative to the root ("" for root).
func (w *walker) dir(ctx context.Context, dir, rel string, inherited []ignoreRule, visit visitFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable folders are skipped, as rg does
	}
	baseDir := slashDir(joinRel(w.baseRel, rel)) // this folder relative to the base
	rules := inherited
	if own := readListedIgnores(dir, baseDir, entries); len(own) > 0 {
		rules = append(append([]ignoreRule(nil), inherited...), own...)
	}
	for _, e := range entries {
		name := e.Name()
		typ := e.Type()
		if typ.IsDir() && name == ".git" && w.onGit != nil {
			if err := w.onGit(joinRel(rel, name)); err != nil {
				return err
			}
		}
		if typ&fs.ModeSymlink != 0 || (typ.IsDir() && name == ".git") {
			continue
		}
		if !typ.IsDir() && !typ.IsRegular() {
			continue
		}
		childRel := joinRel(rel, name)
		if ignored(rules, baseDir+name, typ.IsDir()) && (typ.IsDir() || w.unignore == nil || !w.unignore(childRel)) {
			continue
		}
		path := filepath.Join(dir, name)
		if typ.IsDir() {
			if err := w.dir(ctx, path, childRel, rules, visit); err != nil {
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

func joinRel(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "/" + b
}
