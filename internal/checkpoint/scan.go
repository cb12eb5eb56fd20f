package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// fileStat is what the scan compares to tell a file changed without
// reading it: size, modification and change times, inode. The change time
// moves on every write and cannot be set back by `touch -d`.
type fileStat struct {
	Size  int64
	Mtime int64
	Ctime int64
	Ino   uint64
	Mode  uint32
}

// errTooManyFiles stops a scan of a workspace larger than the limit.
var errTooManyFiles = errors.New("too many files")

// scanTree lists the non-ignored regular files under root (slash paths
// relative to root) with their stats. It reads each folder once and stats
// each file once; no content is read.
func scanTree(root string, extraIgnore []string, maxFiles int) (map[string]fileStat, error) {
	out := make(map[string]fileStat, 1024)
	var walk func(rel string, ig *ignorer) error
	walk = func(rel string, ig *ignorer) error {
		dir := filepath.Join(root, filepath.FromSlash(rel))
		entries, err := os.ReadDir(dir)
		if err != nil {
			if rel != "" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)) {
				return nil // vanished or unreadable meanwhile: nothing to save
			}
			return err
		}
		for _, e := range entries {
			name := e.Name()
			childRel := name
			if rel != "" {
				childRel = rel + "/" + name
			}
			t := e.Type()
			switch {
			case t.IsDir():
				if ig.ignored(childRel, true) {
					continue
				}
				if err := walk(childRel, ig.withDir(root, childRel)); err != nil {
					return err
				}
			case t.IsRegular():
				if ig.ignored(childRel, false) {
					continue
				}
				fi, err := e.Info()
				if err != nil {
					continue // removed between readdir and stat
				}
				if len(out) >= maxFiles {
					return errTooManyFiles
				}
				out[childRel] = statOf(fi)
			}
		}
		return nil
	}
	if err := walk("", rootIgnorer(root, extraIgnore)); err != nil {
		if errors.Is(err, errTooManyFiles) {
			return nil, fmt.Errorf("the workspace has more than %d files outside ignored folders: %w", maxFiles, err)
		}
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	return out, nil
}

// change is one difference between two scans.
type change struct {
	rel  string
	now  fileStat
	gone bool
}

// diffStats lists the paths whose stat differs between old and cur, sorted.
func diffStats(old map[string]baseEntry, cur map[string]fileStat) []change {
	var out []change
	for p, st := range cur {
		if b, ok := old[p]; !ok || b.Stat != st {
			out = append(out, change{rel: p, now: st})
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			out = append(out, change{rel: p, gone: true})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}
