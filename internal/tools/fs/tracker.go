package fs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

// State keys under which this package keeps per-session state.
const (
	TrackerKey = "fs.tracker"
	LocksKey   = "fs.locks"
)

// FileState is what the session knows about a file it has read or written.
type FileState struct {
	ModTime time.Time
	Size    int64
	// Hash is the sha256 of the whole content, empty when only part of a
	// large file was read (then ModTime and Size alone decide staleness).
	Hash   string
	ReadAt time.Time
}

// Tracker records which files the session has seen, so that Write and Edit
// can refuse to overwrite a file the model has not read or that changed on
// disk since (another process, the user, a formatter).
type Tracker struct {
	mu    sync.Mutex
	files map[string]FileState
}

// TrackerFrom returns the session's tracker, creating it on first use.
func TrackerFrom(env *tool.Env) *Tracker {
	return env.State.Load(TrackerKey, func() any { return &Tracker{files: map[string]FileState{}} }).(*Tracker)
}

// Record stores the state of the file at path (a canonical path).
func (t *Tracker) Record(path string, st FileState) {
	t.mu.Lock()
	t.files[path] = st
	t.mu.Unlock()
}

// Get returns the recorded state of path.
func (t *Tracker) Get(path string) (FileState, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, ok := t.files[path]
	return st, ok
}

// Forget drops path (a deleted file).
func (t *Tracker) Forget(path string) {
	t.mu.Lock()
	delete(t.files, path)
	t.mu.Unlock()
}

// RecordContent records a file whose whole content the caller holds.
func (t *Tracker) RecordContent(path string, info os.FileInfo, content []byte) {
	t.Record(path, FileState{ModTime: info.ModTime(), Size: info.Size(), Hash: hashBytes(content), ReadAt: time.Now()})
}

// CheckFresh returns a message for the model when the file at path may not
// be overwritten: never read in this session, or changed since. content is
// the file's current bytes.
func (t *Tracker) CheckFresh(path string, info os.FileInfo, content []byte) string {
	st, ok := t.Get(path)
	if !ok {
		return fmt.Sprintf("File %s has not been read in this session. Read it first with the Read tool, then retry, so that you change what is really there.", path)
	}
	if st.Hash != "" {
		if st.Hash == hashBytes(content) {
			return ""
		}
	} else if st.ModTime.Equal(info.ModTime()) && st.Size == info.Size() {
		return ""
	}
	return fmt.Sprintf("File %s has changed on disk since you read it (modified %s, now %d bytes). Read it again with the Read tool, then retry the change against its current content.",
		path, info.ModTime().Format(time.RFC3339), info.Size())
}

func hashBytes(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// FileLocks serialises changes to one file within a session: two Edit calls
// the model sent in parallel must both land, one after the other.
type FileLocks struct {
	mu    sync.Mutex
	locks map[string]*refLock
}

type refLock struct {
	mu   sync.Mutex
	refs int
}

// LocksFrom returns the session's lock table, creating it on first use.
func LocksFrom(env *tool.Env) *FileLocks {
	return env.State.Load(LocksKey, func() any { return &FileLocks{locks: map[string]*refLock{}} }).(*FileLocks)
}

// Lock takes the lock for path (a canonical path) and returns its release.
// Entries are reference counted so the table does not grow with every file
// ever touched.
func (l *FileLocks) Lock(path string) (unlock func()) {
	l.mu.Lock()
	rl, ok := l.locks[path]
	if !ok {
		rl = &refLock{}
		l.locks[path] = rl
	}
	rl.refs++
	l.mu.Unlock()
	rl.mu.Lock()
	return func() {
		rl.mu.Unlock()
		l.mu.Lock()
		rl.refs--
		if rl.refs == 0 {
			delete(l.locks, path)
		}
		l.mu.Unlock()
	}
}
