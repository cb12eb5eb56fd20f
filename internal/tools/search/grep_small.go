package search

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/regular"
)

// Starting ripgrep costs a few milliseconds (more on a loaded machine),
// more than reading a small tree. So with ripgrep installed, Grep first
// tries the tree itself within these bounds and hands the query to rg as
// soon as the tree turns out bigger, or anything met could make the Go
// search answer differently from rg (see smallSearch).
const (
	// smallTreeFiles bounds the files a search may read, and
	// smallTreeWalk those it may list (before globs and types choose);
	// listing reads only folders, so giving up costs little.
	smallTreeFiles = 1000
	smallTreeWalk  = 4 * smallTreeFiles
	// smallTreeBytes bounds what is read from them.
	smallTreeBytes = 8 << 20
	// binaryPrefix: ripgrep skips a file found by walking when its first
	// read (64 KiB) holds a NUL byte; a NUL this near the start is in that
	// read whatever the buffer, so the Go search skipping the file agrees.
	binaryPrefix = 8 << 10
)

// errNotSmall: the query goes to ripgrep.
var errNotSmall = errors.New("not a small search")

// smallSearch runs q in-process when the answer is certain to be
// ripgrep's: a portable pattern (portablePattern), no multiline mode,
// ignore files only where the walker reads them (no .rgignore, no global
// git excludes, none above the repository, no nested repository), text
// files that are valid UTF-8 without a byte-order mark (rg transcodes
// those) and, for patterns with \d \w \s \b, ASCII. It returns errNotSmall
// otherwise, having read at most smallTreeFiles files or smallTreeBytes.
func smallSearch(ctx context.Context, q query) ([]fileResult, error) {
	if q.multiline {
		return nil, errNotSmall
	}
	ok, asciiOnly := portablePattern(q.pattern)
	if !ok {
		return nil, errNotSmall
	}
	re, err := compilePattern(q)
	if err != nil {
		return nil, errNotSmall
	}
	guard := textGuard{asciiOnly: asciiOnly}
	if q.rootIsFile {
		// rg searches a named binary file (reporting matches before the
		// NUL), so any NUL sends it to rg.
		data, err := regular.ReadFileReusing(q.root, nil, smallTreeBytes)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			return nil, errNotSmall
		}
		if err := guard.check(data); err != nil {
			return nil, err
		}
		if r, ok := searchData(q, re, q.root, data); ok {
			return []fileResult{r}, nil
		}
		return nil, nil
	}
	if outsideIgnores(q.root) {
		return nil, errNotSmall
	}
	paths, err := listSmall(ctx, q)
	if err != nil {
		return nil, err
	}
	return searchPaths(ctx, q, re, guard, paths)
}

// listSmall lists the files q searches, or errNotSmall when there are
// more than smallTreeFiles or the walk meets ignore rules it does not
// apply as ripgrep does.
func listSmall(ctx context.Context, q query) ([]string, error) {
	filter, err := newFileFilter(q.globs, q.fileType)
	if err != nil {
		return nil, err
	}
	w := newWalker(q.root)
	if len(filter.include) > 0 {
		w.unignore = filter.included
	}
	// A repository inside the tree has ignore rules of its own.
	w.onGit = func(rel string) error {
		if strings.Contains(rel, "/") {
			return errNotSmall
		}
		return nil
	}
	var paths []string
	walked := 0
	err = w.walk(ctx, func(path, rel string, _ fs.DirEntry) error {
		if walked++; walked > smallTreeWalk {
			return errNotSmall
		}
		if name := filepath.Base(rel); name == ".rgignore" || name == ".git" {
			return errNotSmall
		}
		if !filter.allows(rel) {
			return nil
		}
		if len(paths) == smallTreeFiles {
			return errNotSmall
		}
		paths = append(paths, path)
		return nil
	})
	return paths, err
}

// searchPaths searches the listed files in parallel.
func searchPaths(ctx context.Context, q query, re *regexp.Regexp, guard textGuard, paths []string) ([]fileResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu      sync.Mutex
		results []fileResult
		wg      sync.WaitGroup
		next    atomic.Int64
		read    atomic.Int64
	)
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // results copy what they keep
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				data, err := regular.ReadFileReusing(paths[i], buf, smallTreeBytes-read.Load())
				if errors.Is(err, regular.ErrTooLarge) {
					cancel(errNotSmall)
					return
				}
				if err != nil {
					continue // unreadable or no longer regular: rg skips it too
				}
				buf = data
				if read.Add(int64(len(data))) > smallTreeBytes {
					cancel(errNotSmall)
					return
				}
				if hasBOM(data) {
					cancel(errNotSmall) // rg transcodes UTF-16 and drops the mark
					return
				}
				if nul := bytes.IndexByte(data, 0); nul >= 0 {
					if nul >= binaryPrefix {
						cancel(errNotSmall)
						return
					}
					continue // binary, as rg decides it
				}
				if err := guard.check(data); err != nil {
					cancel(err)
					return
				}
				if r, ok := searchData(q, re, paths[i], data); ok {
					mu.Lock()
					results = append(results, r)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	sort.Slice(results, func(i, j int) bool { return results[i].path < results[j].path })
	return results, nil
}

// textGuard refuses text the two regex engines may read differently.
type textGuard struct{ asciiOnly bool }

func (g textGuard) check(data []byte) error {
	if hasBOM(data) {
		return errNotSmall
	}
	if g.asciiOnly {
		// Rust's \s also matches a vertical tab; Go's does not.
		for _, b := range data {
			if b >= utf8.RuneSelf || b == '\v' {
				return errNotSmall
			}
		}
		return nil
	}
	if !utf8.Valid(data) {
		return errNotSmall
	}
	return nil
}

// hasBOM reports a UTF-8 or UTF-16 byte-order mark.
func hasBOM(data []byte) bool {
	for _, bom := range [][]byte{{0xEF, 0xBB, 0xBF}, {0xFF, 0xFE}, {0xFE, 0xFF}} {
		if bytes.HasPrefix(data, bom) {
			return true
		}
	}
	return false
}

// outsideIgnores reports ignore rules ripgrep reads that the walker does
// not: the user's global git excludes, any .rgignore above root, and
// ignore files in folders above the repository (or above root when it is
// in none), or a repository whose .git is not a folder (a worktree keeps
// its exclude file elsewhere).
func outsideIgnores(root string) bool {
	if globalGitExcludes() {
		return true
	}
	top := repoTop(root)
	if top != "" {
		if fi, err := os.Stat(filepath.Join(top, ".git")); err != nil || !fi.IsDir() {
			return true
		}
	}
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		names := []string{".rgignore"}
		if top == "" || len(d) < len(top) {
			names = append(names, ignoreFiles...)
		}
		for _, n := range names {
			if _, err := os.Lstat(filepath.Join(d, n)); err == nil {
				return true
			}
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// globalGitExcludes reports whether git's global excludes file may exist:
// core.excludesFile in the user's git config, or the default
// $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore).
func globalGitExcludes() bool {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		if _, err := os.Stat(filepath.Join(xdg, "git", "ignore")); err == nil {
			return true
		}
		if b, err := regular.ReadFile(filepath.Join(xdg, "git", "config")); err == nil && mentionsExcludes(b) {
			return true
		}
	}
	if home != "" {
		if b, err := regular.ReadFile(filepath.Join(home, ".gitconfig")); err == nil && mentionsExcludes(b) {
			return true
		}
	}
	return false
}

func mentionsExcludes(config []byte) bool {
	return bytes.Contains(bytes.ToLower(config), []byte("excludesfile"))
}

// portablePattern reports whether pattern means the same to Go's regexp
// and to ripgrep's regex (the Rust crate; checked against rg 13, the
// oldest rg that CI runs): only escapes both accept, no nested classes or
// class set operations, no flags groups beyond i m s U, repetitions both
// parse. asciiOnly is true when the pattern uses \d \w \s \b or their
// negations, which are ASCII in Go and Unicode in Rust, so the two agree
// only on ASCII text.
func portablePattern(p string) (ok, asciiOnly bool) {
	inClass := false
	prev := byte(0) // the last character outside a class, 0 at the start
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			i++
			if i == len(p) {
				return false, false
			}
			switch e := p[i]; {
			case strings.IndexByte(`\.+*?()|[]{}^$#&-~`, e) >= 0, strings.IndexByte("trfva", e) >= 0:
			case strings.IndexByte("dDwWsS", e) >= 0, !inClass && (e == 'b' || e == 'B'):
				asciiOnly = true
			default:
				return false, false // \x \p \Q \A \z \n digits...: not in both, or line-breaking
			}
			c = 'a' // an atom
		case c == '\n':
			return false, false // rg refuses a pattern that names a newline
		case inClass:
			switch {
			case c == '[' && i+1 < len(p) && p[i+1] == ':':
				end := strings.Index(p[i:], ":]")
				if end < 0 {
					return false, false
				}
				i += end + 1
			case c == '[':
				return false, false // a nested class in Rust, a literal in Go
			case c == ']':
				inClass = false
				c = 'a'
			case (c == '&' || c == '-' || c == '~') && i+1 < len(p) && p[i+1] == c:
				return false, false // a set operation in Rust
			}
			if inClass {
				continue
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
			continue
		case c == '{':
			end := strings.IndexByte(p[i:], '}')
			if end < 0 || !validRepeat(p[i+1:i+end]) || strings.IndexByte("\x00(|^$", prev) >= 0 {
				return false, false // a literal brace in Go, an error in Rust
			}
			i += end
		case c == '(' && i+1 < len(p) && p[i+1] == '?':
			j := i + 2
			for j < len(p) && strings.IndexByte("imsU-", p[j]) >= 0 {
				j++
			}
			if j == len(p) || (p[j] != ':' && p[j] != ')') {
				return false, false // named groups and other extensions
			}
			i = j // prev stays '(': nothing may repeat a bare group start
		case (c == '*' || c == '+' || c == '?') && strings.IndexByte("\x00(|", prev) >= 0:
			return false, false
		}
		prev = c
	}
	return !inClass, asciiOnly
}

// validRepeat reports whether s (what is inside the braces) is a counted
// repetition both engines read the same: n, n, or n,m.
func validRepeat(s string) bool {
	lo, hi, comma := strings.Cut(s, ",")
	digits := func(t string) bool {
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return false
			}
		}
		return true
	}
	return lo != "" && digits(lo) && (!comma || digits(hi))
}
