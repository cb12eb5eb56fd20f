package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// changesLocked lists what differs between the workspace and the
// baseline. With a watcher whose watches cover the workspace it looks only
// at the paths the kernel reported; otherwise (the first scan in this
// process, lost events, changed ignore rules, no inotify) it stats the
// whole tree and sets the watches up for next time. ok is false when the
// workspace cannot be scanned (over max_files, unreadable).
func (t *Tracker) changesLocked() ([]change, bool) {
	if t.w != nil && t.watched {
		if chs, ok := t.incrementalLocked(); ok {
			return chs, true
		}
	}
	cur := t.scanLocked()
	if cur == nil {
		return nil, false
	}
	return diffStats(t.base, cur), true
}

// scanLocked stats the whole workspace, watching its folders on the way
// when it can; nil when scanning is off or failed.
func (t *Tracker) scanLocked() map[string]fileStat {
	if t.scanOff {
		return nil
	}
	if t.w == nil && !t.noWatch {
		if w, err := newWatcher(); err == nil {
			t.w = w
		} else {
			t.noWatch = true
		}
	}
	var hook func(string) func(*ignorer)
	if t.w != nil {
		t.w.drain() // what happened before this scan is in the scan
		hook = t.hookFor(t.w)
	}
	cur, err := scanTree(t.root, t.cfg.Ignore, t.cfg.MaxFiles, hook)
	if err != nil {
		t.dropWatcherLocked()
		if errors.Is(err, errTooManyFiles) {
			t.scanOff = true
			t.notice("checkpoints: " + err.Error() + "; changes made by shell commands are not tracked in this session (raise checkpoints.max_files or ignore folders with checkpoints.ignore)")
		} else {
			t.notice("checkpoint: " + err.Error())
		}
		return nil
	}
	if t.w != nil {
		if err := t.w.failed(); err != nil {
			// Too many folders for the system's inotify limit: stat scans.
			t.dropWatcherLocked()
			t.noWatch = true
		} else {
			t.watched = true
		}
	}
	return cur
}

func (t *Tracker) hookFor(w *watcher) func(string) func(*ignorer) {
	return func(rel string) func(*ignorer) {
		return w.hook(filepath.Join(t.root, filepath.FromSlash(rel)), rel)
	}
}

func (t *Tracker) dropWatcherLocked() {
	if t.w != nil {
		t.w.close()
	}
	t.w, t.watched = nil, false
}

// incrementalLocked turns the watcher's events into changes; ok is false
// when only a full scan can tell (lost events, a .gitignore changed).
func (t *Tracker) incrementalLocked() ([]change, bool) {
	evs, overflow, err := t.w.drain()
	if err != nil || overflow {
		return nil, false
	}
	cands := map[string]*fileStat{} // path -> stat when already known
	for _, e := range evs {
		if e.dir.ig == nil || e.name == ".gitignore" {
			return nil, false
		}
		if e.name == "" { // the watched folder itself went away
			t.underLocked(e.dir.rel, cands)
			continue
		}
		rel := e.name
		if e.dir.rel != "" {
			rel = e.dir.rel + "/" + e.name
		}
		if e.dir.ig.ignored(rel, e.name, e.isDir) {
			continue
		}
		switch {
		case e.isDir && e.appeared():
			files, err := scanFrom(t.root, rel, e.dir.ig, t.cfg.MaxFiles, t.hookFor(t.w))
			if err != nil || t.w.failed() != nil {
				return nil, false
			}
			for p, st := range files {
				st := st
				cands[p] = &st
			}
		case e.isDir && e.vanished():
			t.underLocked(rel, cands)
		case !e.isDir:
			if _, ok := cands[rel]; !ok {
				cands[rel] = nil
			}
		}
	}
	var out []change
	for rel, st := range cands {
		if c, ok := t.statChangeLocked(rel, st); ok {
			out = append(out, c)
		}
	}
	sortChanges(out)
	return out, true
}

// underLocked adds every baseline path under the folder rel.
func (t *Tracker) underLocked(rel string, cands map[string]*fileStat) {
	prefix := rel + "/"
	for p := range t.base {
		if rel == "" || strings.HasPrefix(p, prefix) {
			if _, ok := cands[p]; !ok {
				cands[p] = nil
			}
		}
	}
}

// statChangeLocked compares one path with its baseline entry.
func (t *Tracker) statChangeLocked(rel string, known *fileStat) (change, bool) {
	be, had := t.base[rel]
	var st fileStat
	if known != nil {
		st = *known
	} else {
		fi, err := os.Lstat(filepath.Join(t.root, filepath.FromSlash(rel)))
		if err != nil || !fi.Mode().IsRegular() {
			return change{rel: rel, gone: true}, had
		}
		st = statOf(fi)
	}
	if had && be.Stat == st {
		return change{}, false
	}
	return change{rel: rel, now: st}, true
}
