package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
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

// scanner is one walk of a workspace. Folders are listed in parallel: the
// walk is bound by system calls (one readdir per folder, one lstat per
// file), which overlap well even on few cores.
type scanner struct {
	root     string
	maxFiles int64
	n        atomic.Int64
	sem      chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex
	out      map[string]fileStat
	err      error
	// onDir, when set, is called for each folder before it is listed (a
	// watcher adds its watch then, so no change between the listing and
	// the watch is missed); the func it returns gets the folder's rules.
	onDir func(rel string) func(*ignorer)
}

// scanTree lists the non-ignored regular files under root (slash paths
// relative to root) with their stats. No content is read.
func scanTree(root string, extraIgnore []string, maxFiles int, onDir func(string) func(*ignorer)) (map[string]fileStat, error) {
	return scanFrom(root, "", rootIgnorer(root, extraIgnore), maxFiles, onDir)
}

// scanFrom is scanTree for the folder rel only (a folder that appeared),
// under the rules of its parent.
func scanFrom(root, rel string, parent *ignorer, maxFiles int, onDir func(string) func(*ignorer)) (map[string]fileStat, error) {
	s := &scanner{root: root, maxFiles: int64(maxFiles), sem: make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		out: make(map[string]fileStat, 64), onDir: onDir}
	s.walk(rel, parent)
	s.wg.Wait()
	if s.err != nil {
		if errors.Is(s.err, errTooManyFiles) {
			return nil, fmt.Errorf("the workspace has more than %d files outside ignored folders: %w", maxFiles, s.err)
		}
		return nil, fmt.Errorf("scan %s: %w", root, s.err)
	}
	return s.out, nil
}

func (s *scanner) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

func (s *scanner) walk(rel string, ig *ignorer) {
	dir := filepath.Join(s.root, filepath.FromSlash(rel))
	var setRules func(*ignorer)
	if s.onDir != nil {
		setRules = s.onDir(rel)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if rel == "" || !(errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)) {
			s.fail(err)
		}
		return // a folder that vanished or is unreadable has nothing to save
	}
	if rel != "" {
		for _, e := range entries {
			if e.Name() == ".gitignore" {
				ig = ig.withDir(s.root, rel)
				break
			}
		}
	}
	if setRules != nil {
		setRules(ig)
	}
	local := make(map[string]fileStat, len(entries))
	for _, e := range entries {
		name := e.Name()
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		t := e.Type()
		switch {
		case t.IsDir():
			if ig.ignored(childRel, name, true) {
				continue
			}
			select {
			case s.sem <- struct{}{}:
				s.wg.Add(1)
				go func() {
					defer s.wg.Done()
					s.walk(childRel, ig)
					<-s.sem
				}()
			default:
				s.walk(childRel, ig)
			}
		case t.IsRegular():
			if ig.ignored(childRel, name, false) {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue // removed between readdir and stat
			}
			if s.n.Add(1) > s.maxFiles {
				s.fail(errTooManyFiles)
				return
			}
			local[childRel] = statOf(fi)
		}
	}
	s.mu.Lock()
	for k, v := range local {
		s.out[k] = v
	}
	s.mu.Unlock()
}

// change is one difference between the baseline and a scan.
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
	sortChanges(out)
	return out
}

func sortChanges(cs []change) { sort.Slice(cs, func(i, j int) bool { return cs[i].rel < cs[j].rel }) }
