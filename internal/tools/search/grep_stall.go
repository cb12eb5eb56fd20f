package search

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// rgStallCheck is how long ripgrep runs before we look for the one thing
// that makes it wait forever: an ignore file (.gitignore, .ignore,
// .rgignore, .git/info/exclude) that is a FIFO, which ripgrep opens and
// blocks on. Normal searches never pay for the check.
const rgStallCheck = time.Second

var ignoreFileNames = map[string]bool{".gitignore": true, ".ignore": true, ".rgignore": true}

var errStopWalk = errors.New("stop")

// specialIgnoreFile returns the first ignore file under root (or in the
// folders above it up to the repository top, which ripgrep also reads) that
// is not a regular file, or "".
func specialIgnoreFile(ctx context.Context, root string) string {
	special := func(p string) bool {
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			fi, err = os.Stat(p)
		}
		return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
	}
	if top := repoTop(root); top != "" {
		if p := filepath.Join(top, ".git", "info", "exclude"); special(p) {
			return p
		}
		for d := filepath.Dir(root); len(d) >= len(top); d = filepath.Dir(d) {
			for name := range ignoreFileNames {
				if p := filepath.Join(d, name); special(p) {
					return p
				}
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	found := ""
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return errStopWalk
		}
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if ignoreFileNames[d.Name()] && !d.Type().IsRegular() && special(p) {
			found = p
			return errStopWalk
		}
		return nil
	})
	return found
}
