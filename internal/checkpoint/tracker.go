package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/tool"
)

// Tracker records one live session's checkpoints: the checkpoint before
// each prompt and the prior state of each file the turn changes. It keeps
// the session's baseline (the last seen stat and content hash of every
// non-ignored workspace file) so that the prior content of a file a shell
// command changes is already saved when the command has run.
type Tracker struct {
	svc     *Service
	session string
	root    string
	cfg     Config
	notice  func(string)
	tools   tool.Lookup // see UseTools

	mu       sync.Mutex
	base     map[string]baseEntry // nil until the first scan
	scanOff  bool                 // the workspace is over the file limit
	cur      int                  // the running turn's checkpoint; 0 between turns
	recorded map[string]bool      // paths the current checkpoint has
	pending  map[string]prior     // paths a running call declared it writes, their state before it
	dirty    bool                 // base changed since it was saved
	w        *watcher             // nil: every scan stats the whole tree
	watched  bool                 // w's watches cover the workspace
	noWatch  bool                 // no watcher on this system or it failed
	built    bool                 // base reflects a complete look at the workspace
	closed   bool
}

// Begin makes the checkpoint for a prompt about to run: it brings the
// baseline up to date (changes made since the last turn, by anyone, are
// part of the state before this prompt) and stores the checkpoint.
func (t *Tracker) Begin(ctx context.Context, prompt string) (store.Checkpoint, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.base == nil {
		t.base = t.loadBaselineLocked()
	}
	if len(t.base) == 0 && !t.built {
		// First sight of the workspace: reading and saving every file takes
		// a while in a large one, so it runs beside the model's first call.
		// Every tool call waits for it (it holds the lock), so nothing can
		// change a file before its content is saved.
		go t.buildBaseline(ctx)
	} else {
		t.refreshLocked(ctx)
	}
	resume, err := t.svc.captureResume(ctx, t.session)
	if err != nil {
		return store.Checkpoint{}, err
	}
	cp, err := t.svc.st.CreateCheckpoint(ctx, t.session, firstLine(prompt), resume)
	if err != nil {
		return cp, err
	}
	t.cur, t.recorded, t.pending = cp.Number, map[string]bool{}, map[string]prior{}
	if n, err := t.svc.st.PruneCheckpoints(ctx, t.session, t.cfg.Keep); err == nil && n > 0 && cp.Number%20 == 0 {
		_, _ = t.svc.Collect(ctx) // now and then, not on every prompt past the limit
	}
	return cp, nil
}

func (t *Tracker) buildBaseline(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.built && !t.closed {
		t.refreshLocked(ctx)
	}
}

// End closes the turn: a last scan catches what the turn changed outside
// tracked tool calls (background jobs, MCP tools), and the baseline is saved.
func (t *Tracker) End(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur != 0 {
		// A call that never reported its end (the claude-code CLI refused
		// or failed it after tandem allowed it) counts only if it changed
		// its files.
		for path := range t.pending {
			t.finishLocked(ctx, path, false)
		}
		t.recordScanLocked(ctx)
		if err := t.svc.st.DropEmptyCheckpoint(ctx, t.session, t.cur); err != nil {
			t.notice("checkpoint: " + err.Error())
		}
	}
	t.cur, t.recorded, t.pending = 0, nil, nil
	t.saveLocked()
}

// prior is a file's state before a call that declared it writes it.
type prior struct {
	file  store.CheckpointFile
	known string // its knownHash; "" for an absent file
}

// BeforeFile saves the prior state of a file a tool call is about to
// change. The file joins the checkpoint only when the call is done
// (AfterFile): a call refused or failed before writing changed nothing.
func (t *Tracker) BeforeFile(ctx context.Context, path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	path = t.abs(path)
	if t.cur == 0 || t.recorded[path] {
		return
	}
	if _, ok := t.pending[path]; ok {
		return // an earlier call's prior state is the older one
	}
	f, known, err := t.priorLocked(path)
	if err != nil {
		t.notice(fmt.Sprintf("checkpoint: cannot save %s before the change: %v", path, err))
		return
	}
	t.pending[path] = prior{file: f, known: known}
}

// AfterFile notes a file's state after a tool call that declared it
// writes it; ok is the call's outcome (it reported success).
func (t *Tracker) AfterFile(ctx context.Context, path string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == 0 {
		return
	}
	t.finishLocked(ctx, t.abs(path), ok)
}

// finishLocked is the one place that decides whether a call changed a
// file it declared: it did when it reported success or when the file is
// no longer what it was before the call (a call that failed half-way).
// Only then does the file join the checkpoint, with its prior state.
func (t *Tracker) finishLocked(ctx context.Context, path string, ok bool) {
	p, pending := t.pending[path]
	delete(t.pending, path)
	if !pending && !t.recorded[path] {
		return // nothing was saved before the call: it was never allowed to run
	}
	be, exists, err := t.noteLocked(path)
	if err != nil {
		t.notice(fmt.Sprintf("checkpoint: cannot save %s after the change: %v", path, err))
		return
	}
	h := ""
	if exists {
		h = knownHash(path, be)
	}
	if t.recorded[path] {
		t.addLocked(ctx, nil, map[string]string{path: h})
		return
	}
	same := h == p.known && exists == (p.file.State != store.FileAbsent) && (!exists || be.Stat.Mode == 0 || be.Stat.Mode == p.file.Mode)
	if !ok && same {
		return // refused or failed, and the file is as it was
	}
	t.addLocked(ctx, []store.CheckpointFile{p.file}, map[string]string{path: h})
}

// BeforeScan brings the baseline up to date before a shell command, so the
// command's own changes are told from earlier ones.
func (t *Tracker) BeforeScan(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur != 0 {
		t.refreshLocked(ctx)
	}
}

// AfterScan records what a shell command changed in the workspace.
func (t *Tracker) AfterScan(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur != 0 {
		t.recordScanLocked(ctx)
	}
}

// Close saves the baseline (the session is leaving this process).
func (t *Tracker) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.saveLocked()
	t.dropWatcherLocked()
	t.closed = true
}

func (t *Tracker) abs(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.root, p)
	}
	return filepath.Clean(p)
}

// rel is p relative to the root when it is inside it.
func (t *Tracker) rel(p string) (string, bool) {
	r, err := filepath.Rel(t.root, p)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// priorLocked is a file's state now, as a checkpoint entry, and its hash
// for the known table. A baseline entry whose stat still matches is used
// as is: its content is already saved.
func (t *Tracker) priorLocked(path string) (store.CheckpointFile, string, error) {
	f := store.CheckpointFile{Path: path}
	if rel, ok := t.rel(path); ok && t.base != nil {
		if be, ok := t.base[rel]; ok {
			if fi, err := os.Lstat(path); err == nil && statOf(fi) == be.Stat {
				return entryFile(path, be), be.Hash, nil
			}
		}
	}
	info, err := t.svc.blobs.saveFile(path, t.cfg.MaxFileBytes)
	if err != nil {
		return f, "", err
	}
	switch {
	case !info.exists:
		f.State = store.FileAbsent
		return f, "", nil
	case info.tooLarge:
		f.State, f.Mode = store.FileTooLarge, uint32(info.mode)
		return f, "", nil
	}
	f.State, f.Hash, f.Mode = store.FileSaved, info.hash, uint32(info.mode)
	return f, info.hash, nil
}

func entryFile(path string, be baseEntry) store.CheckpointFile {
	if be.Large {
		return store.CheckpointFile{Path: path, State: store.FileTooLarge, Mode: be.Stat.Mode}
	}
	return store.CheckpointFile{Path: path, State: store.FileSaved, Hash: be.Hash, Mode: be.Stat.Mode}
}

// noteLocked saves a file's current content and updates its baseline
// entry when it is in the workspace.
func (t *Tracker) noteLocked(path string) (baseEntry, bool, error) {
	fi, statErr := os.Lstat(path)
	info, err := t.svc.blobs.saveFile(path, t.cfg.MaxFileBytes)
	if err != nil {
		return baseEntry{}, false, err
	}
	be := baseEntry{Hash: info.hash, Large: info.tooLarge}
	if statErr == nil {
		be.Stat = statOf(fi)
	}
	if rel, ok := t.rel(path); ok && t.base != nil {
		if info.exists && fi != nil && fi.Mode().IsRegular() {
			t.base[rel] = be
		} else {
			delete(t.base, rel)
		}
		t.dirty = true
	}
	return be, info.exists, nil
}

func (t *Tracker) addLocked(ctx context.Context, files []store.CheckpointFile, known map[string]string) {
	var fresh []store.CheckpointFile
	for _, f := range files {
		if !t.recorded[f.Path] {
			fresh = append(fresh, f)
		}
	}
	if len(fresh) == 0 && len(known) == 0 {
		return
	}
	if err := t.svc.upload(ctx, fresh); err != nil {
		t.notice("checkpoint: " + err.Error())
		return
	}
	if err := t.svc.st.AddCheckpointFiles(ctx, t.session, t.cur, fresh, known); err != nil {
		t.notice("checkpoint: " + err.Error())
		return
	}
	for _, f := range fresh {
		t.recorded[f.Path] = true
	}
}

// refreshLocked absorbs every change since the last scan into the
// baseline, saving the new contents. The first call in a process loads the
// stored baseline; a session's first ever call reads the whole workspace.
func (t *Tracker) refreshLocked(ctx context.Context) {
	if t.base == nil {
		t.base = t.loadBaselineLocked()
	}
	if t.base == nil {
		t.base = map[string]baseEntry{}
	}
	chs, ok := t.changesLocked()
	if !ok {
		return
	}
	if len(chs) > parallelSaveMin {
		if !t.absorbAllLocked(ctx, chs) {
			t.watched = false // the next look is a full scan, which sees the rest
			return
		}
		t.built = true
		return
	}
	for _, c := range chs {
		if ctx.Err() != nil {
			t.watched = false
			return
		}
		t.absorbLocked(c)
	}
	t.built = true
}

// parallelSaveMin is where saving changed files in parallel starts to pay:
// a first sight reads and saves every file, bound by system calls.
const parallelSaveMin = 64

// absorbAllLocked is absorbLocked for many changes, the files read and
// saved by a few workers; the baseline is updated by the caller's
// goroutine only. It reports false when ctx ended first.
func (t *Tracker) absorbAllLocked(ctx context.Context, chs []change) bool {
	type saved struct {
		info fileInfo
		err  error
	}
	res := make([]saved, len(chs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 2*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if !chs[i].gone {
					res[i].info, res[i].err = t.svc.blobs.saveFile(filepath.Join(t.root, filepath.FromSlash(chs[i].rel)), t.cfg.MaxFileBytes)
				}
			}
		}()
	}
	done := true
	for i := range chs {
		if ctx.Err() != nil {
			done = false
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if !done {
		return false
	}
	for i, c := range chs {
		if c.gone {
			t.dirty = true
			delete(t.base, c.rel)
			continue
		}
		t.applyLocked(c, res[i].info, res[i].err)
	}
	return true
}

// absorbLocked updates the baseline for one change.
func (t *Tracker) absorbLocked(c change) baseEntry {
	if c.gone {
		t.dirty = true
		delete(t.base, c.rel)
		return baseEntry{}
	}
	info, err := t.svc.blobs.saveFile(filepath.Join(t.root, filepath.FromSlash(c.rel)), t.cfg.MaxFileBytes)
	return t.applyLocked(c, info, err)
}

// applyLocked puts one saved file into the baseline.
func (t *Tracker) applyLocked(c change, info fileInfo, err error) baseEntry {
	t.dirty = true
	if err != nil {
		// It exists but cannot be read (permissions): named if changed,
		// never taken for a file the turn created (which a rewind deletes).
		be := baseEntry{Stat: c.now, Large: true}
		t.base[c.rel] = be
		return be
	}
	if !info.exists {
		delete(t.base, c.rel)
		return baseEntry{}
	}
	be := baseEntry{Stat: c.now, Hash: info.hash, Large: info.tooLarge}
	t.base[c.rel] = be
	return be
}

// recordScanLocked compares the workspace with the baseline and records
// each difference's prior state (from the baseline) in the checkpoint.
func (t *Tracker) recordScanLocked(ctx context.Context) {
	if !t.built {
		// Without a complete baseline every file would look new.
		t.refreshLocked(ctx)
		return
	}
	chs, ok := t.changesLocked()
	if !ok {
		return
	}
	var files []store.CheckpointFile
	var changed []string
	known := map[string]string{}
	for _, c := range chs {
		path := filepath.Join(t.root, filepath.FromSlash(c.rel))
		if !c.gone {
			changed = append(changed, path)
		}
		if prior, ok := t.base[c.rel]; ok {
			files = append(files, entryFile(path, prior))
		} else {
			files = append(files, store.CheckpointFile{Path: path, State: store.FileAbsent})
		}
		known[path] = knownHash(path, t.absorbLocked(c))
	}
	t.addLocked(ctx, files, known)
	// The call's wrapper (language server diagnostics) reads what changed.
	tool.ReportChanged(ctx, changed...)
}

// loadBaselineLocked is the stored baseline, or nil when there is none
// (or the session id cannot name a folder: it is then rebuilt, and saving
// it reports why it cannot be kept).
func (t *Tracker) loadBaselineLocked() map[string]baseEntry {
	path, err := t.svc.baselinePath(t.session)
	if err != nil {
		return nil
	}
	return loadBaseline(path, t.root)
}

func (t *Tracker) saveLocked() {
	if !t.dirty || t.base == nil {
		return
	}
	path, err := t.svc.baselinePath(t.session)
	if err == nil {
		err = saveBaseline(path, t.root, t.base)
	}
	if err != nil {
		t.notice("checkpoint: " + err.Error())
		return
	}
	t.dirty = false
}

// firstLine is a prompt's first non-empty line, shortened for listings.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 120 {
				return string(r[:119]) + "…"
			}
			return l
		}
	}
	return ""
}

// knownHash is the hash tandem remembers a file by: the saved content's,
// or for a file too large to save, its content hashed as it streams by,
// so a rewind can still tell the file was not changed outside tandem.
func knownHash(path string, be baseEntry) string {
	if !be.Large {
		return be.Hash
	}
	h, _, err := hashFile(path)
	if err != nil {
		return ""
	}
	return h
}
