//go:build linux

package checkpoint

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

// watcher reports which workspace paths changed, through inotify, so the
// scan around a shell command reads the few changed entries instead of
// stat-ing every file. Events are queued by the kernel as the changes
// happen, so when a command has exited its changes are all there to read.
type watcher struct {
	fd  int
	buf []byte

	mu   sync.Mutex
	dirs map[int32]*watchedDir
	err  error // a watch could not be added: the watcher is not complete
}

type watchedDir struct {
	rel string
	ig  *ignorer // nil until the folder was listed
}

// fsEvent is one inotify event.
type fsEvent struct {
	dir   *watchedDir
	name  string // "" for an event about the folder itself
	isDir bool
	mask  uint32
}

const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MODIFY | syscall.IN_ATTRIB |
	syscall.IN_CLOSE_WRITE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF |
	syscall.IN_MOVE_SELF | syscall.IN_DONT_FOLLOW | syscall.IN_ONLYDIR

func newWatcher() (*watcher, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &watcher{fd: fd, buf: make([]byte, 64<<10), dirs: map[int32]*watchedDir{}}, nil
}

// hook watches the folder rel (absolute path abs) before it is listed and
// returns where its rules go once known.
func (w *watcher) hook(abs, rel string) func(*ignorer) {
	wd, err := syscall.InotifyAddWatch(w.fd, abs, watchMask)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if w.err == nil {
			w.err = fmt.Errorf("watch %s: %w", abs, err)
		}
		return func(*ignorer) {}
	}
	d := &watchedDir{rel: rel}
	w.dirs[int32(wd)] = d
	return func(ig *ignorer) {
		w.mu.Lock()
		d.ig = ig
		w.mu.Unlock()
	}
}

func (w *watcher) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// drain reads every queued event. overflow means events were lost: only a
// full scan can tell what changed.
func (w *watcher) drain() (evs []fsEvent, overflow bool, err error) {
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if errors.Is(err, syscall.EAGAIN) || n == 0 {
			return evs, overflow, nil
		}
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return evs, overflow, fmt.Errorf("inotify read: %w", err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			raw := (*syscall.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameLen := int(raw.Len)
			nameBytes := w.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+nameLen]
			off += syscall.SizeofInotifyEvent + nameLen
			if raw.Mask&syscall.IN_Q_OVERFLOW != 0 {
				overflow = true
				continue
			}
			name := cString(nameBytes)
			w.mu.Lock()
			d := w.dirs[raw.Wd]
			if raw.Mask&syscall.IN_IGNORED != 0 {
				delete(w.dirs, raw.Wd)
			}
			w.mu.Unlock()
			if d == nil {
				continue
			}
			evs = append(evs, fsEvent{dir: d, name: name, isDir: raw.Mask&syscall.IN_ISDIR != 0, mask: raw.Mask})
		}
	}
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func (w *watcher) close() { syscall.Close(w.fd) }

// appeared and vanished say what an event means for its entry.
func (e fsEvent) appeared() bool { return e.mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 }
func (e fsEvent) vanished() bool {
	return e.mask&(syscall.IN_DELETE|syscall.IN_MOVED_FROM|syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_IGNORED) != 0
}
