package checkpoint

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A checkpoint names files by absolute path, but the folders on the way
// may have changed since: `rm -rf sub && ln -s ../outside sub` would make
// a restore of sub/a.txt write outside the workspace. So at rewind time
// every target is placed again: inside one of the session's folders
// (roots), every folder between the root and the file a real folder (no
// symbolic link followed), and each write, rename and removal done through
// an os.Root opened on that root, which refuses to leave it even if a
// folder is swapped for a link while the rewind runs.

// errOutside marks a target the rewind leaves alone and reports.
var errOutside = errors.New("outside the session's folders")

// inTheWay is something at a target's place that a rewind cannot replace
// without deleting what the user put there.
type inTheWay struct {
	path string // what is in the way
	what string // "a folder", "a file"
	need string // what the checkpoint needs there
}

// BlockedError names what stands where a rewind must put a file back, and
// how to clear it. --force does not clear it: a rewind never deletes a
// folder or a file it did not record.
type BlockedError struct{ Items []inTheWay }

func (e *BlockedError) Error() string {
	parts := make([]string, 0, len(e.Items))
	for _, it := range e.Items {
		parts = append(parts, fmt.Sprintf("%s is %s where the checkpoint has %s", it.path, it.what, it.need))
	}
	return strings.Join(parts, "; ") + " (move or delete what is in the way, e.g. `mv PATH PATH.aside`, then run the rewind again; --force does not delete it)"
}

// Paths lists what is in the way.
func (e *BlockedError) Paths() []string {
	out := make([]string, 0, len(e.Items))
	for _, it := range e.Items {
		out = append(out, it.path)
	}
	return out
}

// place is a target found safe: the root it lies in and its path there.
type place struct {
	root *os.Root
	rel  string // relative to the root, OS separators
	// state of the target now: absent, a regular file, or a symbolic link
	// (replaced by the restore itself, never followed).
	exists, link bool
}

// placer opens each root once for a rewind.
type placer struct {
	roots []string
	open  map[string]*os.Root
}

func newPlacer(roots []string) *placer {
	pl := &placer{open: map[string]*os.Root{}}
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		r = filepath.Clean(r)
		if !seen[r] {
			seen[r] = true
			pl.roots = append(pl.roots, r)
		}
	}
	// The deepest root first: a file is placed under the closest one.
	sort.Slice(pl.roots, func(i, j int) bool { return len(pl.roots[i]) > len(pl.roots[j]) })
	return pl
}

func (pl *placer) close() {
	for _, r := range pl.open {
		r.Close()
	}
}

// resolve places p, or says why it is outside (errOutside) or what is in
// its way (*inTheWay).
func (pl *placer) resolve(p string) (place, error) {
	p = filepath.Clean(p)
	for _, r := range pl.roots {
		rel, err := filepath.Rel(r, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		root, err := pl.rootFor(r)
		if err != nil {
			return place{}, fmt.Errorf("%w: cannot open %s: %v", errOutside, r, err)
		}
		return walk(root, r, rel)
	}
	return place{}, fmt.Errorf("%w (%s)", errOutside, strings.Join(pl.roots, ", "))
}

func (pl *placer) rootFor(r string) (*os.Root, error) {
	if root, ok := pl.open[r]; ok {
		return root, nil
	}
	root, err := os.OpenRoot(r)
	if err != nil {
		return nil, err
	}
	pl.open[r] = root
	return root, nil
}

// walk checks every folder between the root and the target without
// following a link, then what stands at the target.
func walk(root *os.Root, top, rel string) (place, error) {
	parts := strings.Split(rel, string(filepath.Separator))
	for i := 1; i < len(parts); i++ {
		dir := filepath.Join(parts[:i]...)
		fi, err := root.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return place{root: root, rel: rel}, nil // created by the restore
		}
		if err != nil {
			return place{}, fmt.Errorf("%w: %s: %v", errOutside, filepath.Join(top, dir), err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return place{}, fmt.Errorf("%w: the folder %s is a symbolic link now", errOutside, filepath.Join(top, dir))
		case !fi.IsDir():
			return place{}, &inTheWay{path: filepath.Join(top, dir), what: "a file", need: "a folder"}
		}
	}
	fi, err := root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return place{root: root, rel: rel}, nil
	case err != nil:
		return place{}, fmt.Errorf("%w: %s: %v", errOutside, filepath.Join(top, rel), err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return place{root: root, rel: rel, exists: true, link: true}, nil
	case fi.IsDir():
		return place{}, &inTheWay{path: filepath.Join(top, rel), what: "a folder", need: "a file"}
	case !fi.Mode().IsRegular():
		return place{}, &inTheWay{path: filepath.Join(top, rel), what: "a special file (" + fi.Mode().Type().String() + ")", need: "a file"}
	}
	return place{root: root, rel: rel, exists: true}, nil
}

func (e *inTheWay) Error() string { return (&BlockedError{Items: []inTheWay{*e}}).Error() }

// remove deletes the target inside its root.
func (pl place) remove() error {
	err := pl.root.Remove(pl.rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// write replaces the target with data: written and synced to a temporary
// file in the same folder, given the mode, then renamed over the target
// (a link there is replaced, not followed), so a kill leaves either the
// old or the new content, never a mix. Every step goes through the root.
func (pl place) write(data []byte, mode fs.FileMode) error {
	if mode == 0 {
		mode = 0o644
	}
	dir := filepath.Dir(pl.rel)
	if dir != "." {
		if err := pl.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := filepath.Join(dir, "."+filepath.Base(pl.rel)+tempMark+rand.Text())
	f, err := pl.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = pl.root.Chmod(tmp, mode.Perm())
	}
	if err == nil {
		err = pl.root.Rename(tmp, pl.rel)
	}
	if err != nil {
		pl.root.Remove(tmp)
	}
	return err
}

// removeStaleTemps deletes temporary files a killed rewind left in the
// folders of the places, reading and removing through each root.
func removeStaleTemps(places []place) {
	type dirKey struct {
		root *os.Root
		dir  string
	}
	seen := map[dirKey]bool{}
	for _, pl := range places {
		k := dirKey{pl.root, filepath.Dir(pl.rel)}
		if seen[k] {
			continue
		}
		seen[k] = true
		d, err := pl.root.Open(k.dir)
		if err != nil {
			continue
		}
		entries, _ := d.ReadDir(-1)
		d.Close()
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), tempMark) && e.Type().IsRegular() {
				pl.root.Remove(filepath.Join(k.dir, e.Name()))
			}
		}
	}
}
