package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/gitrepo"
)

// The git guard (docs/sandbox.md, "Git's program files"). Read-only bind
// mounts keep the git program files that exist when the session's sandbox
// starts (gitrepo.ProgramFiles) as they are, but a mount needs something
// to mount over: a command can create one that is missing (.git/commondir
// naming a git folder it built, whose config and hooks git then runs; a
// .git/hooks folder in a repository that had none; config.worktree), or
// rename the folder holding them away and build a new one in its place.
// A placeholder to mount over does not work (git dies on an empty
// commondir; a /dev/null mount shows an empty file outside too). So
// tandem, outside the sandbox, watches the folders that hold them
// (inotify) and removes such a file the moment it appears, and checks
// again after every command and when the session's sandbox stops (the
// watcher can overflow, and a command may outrun it): each removal is a
// sandbox_denial event. Outside the sandbox nothing else runs git
// against these files in between but the user.

// guardEntry is one program file the guard keeps from appearing.
type guardEntry struct {
	path string // absolute: an entry of gitrepo.ProgramFiles
	// anchor is the folder the checks and the removal are confined to
	// (os.Root): the git folder's parent, which the sandbox cannot
	// replace, so no link a command made leads a removal outside it.
	anchor string
	// parent is the identity of the folder holding path when the guard
	// started; another folder there now was put in its place.
	parent fileID
	// existed: path was there when the guard started (it is mounted
	// read-only; only a replaced parent makes it suspect).
	existed bool
}

type fileID struct{ dev, ino uint64 }

func idOf(fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{uint64(st.Dev), uint64(st.Ino)}
	}
	return fileID{}
}

// gitGuard removes git program files that did not exist when it started.
type gitGuard struct {
	entries []guardEntry
	dirs    []string        // the folders watched
	names   map[string]bool // the names whose appearance in them matters
	report  func(event.Event)

	mu   sync.Mutex // one check at a time
	in   *os.File   // the inotify descriptor (nil: no watcher)
	done chan struct{}
}

// guardMask: a name created or moved in or out of a watched folder, or the
// folder itself moved or deleted.
const guardMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_MOVE_SELF |
	unix.IN_DELETE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// startGuard takes stock of gitDirs' program files and starts watching.
// report receives one sandbox_denial per removal (nil: none is said). A
// watcher that cannot start (inotify limits) leaves the checks.
func startGuard(gitDirs []string, report func(event.Event)) *gitGuard {
	g := &gitGuard{names: map[string]bool{}, report: report}
	dirs := map[string]bool{}
	for _, gd := range gitDirs {
		anchor := filepath.Dir(gd)
		for _, p := range gitrepo.ProgramFiles(gd) {
			fi, err := os.Lstat(filepath.Dir(p))
			if err != nil || !fi.IsDir() {
				continue // a folder that is not there holds nothing git reads
			}
			_, err = os.Lstat(p)
			g.entries = append(g.entries, guardEntry{path: p, anchor: anchor, parent: idOf(fi), existed: err == nil})
			// The folder holding p, and the one holding that (to see it
			// replaced).
			g.names[filepath.Base(p)] = true
			g.names[filepath.Base(filepath.Dir(p))] = true
			dirs[filepath.Dir(p)] = true
			if d := filepath.Dir(filepath.Dir(p)); strings.HasPrefix(d, anchor) {
				dirs[d] = true
			}
		}
	}
	if len(g.entries) == 0 {
		return g
	}
	for d := range dirs {
		g.dirs = append(g.dirs, d)
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err == nil {
		// Non-blocking, so Read waits in Go's poller and Close ends it.
		g.in = os.NewFile(uintptr(fd), "inotify")
		g.done = make(chan struct{})
		g.watch()
		go g.loop()
	}
	// What appeared between the stock-taking and the watches.
	g.check()
	return g
}

// watch (re)adds a watch on each folder: one replaced since has a new
// inode, which the path now names.
func (g *gitGuard) watch() {
	if g.in == nil {
		return
	}
	rc, err := g.in.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		for _, d := range g.dirs {
			unix.InotifyAddWatch(int(fd), d, guardMask)
		}
	})
}

// loop reads the watcher's events and checks when one matters.
func (g *gitGuard) loop() {
	defer close(g.done)
	buf := make([]byte, 64*1024)
	for {
		n, err := g.in.Read(buf)
		if err != nil {
			return // closed by stop
		}
		matters := false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			l := int(binary.NativeEndian.Uint32(buf[off+12:]))
			end := min(off+unix.SizeofInotifyEvent+l, n)
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:end]), "\x00")
			if mask&(unix.IN_Q_OVERFLOW|unix.IN_MOVE_SELF|unix.IN_DELETE_SELF) != 0 || g.names[name] {
				matters = true
			}
			off = end
		}
		if matters {
			g.check()
		}
	}
}

// check removes each program file that is there but was not when the
// guard started, or whose folder was replaced since, and says so.
func (g *gitGuard) check() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.watch()
	roots := map[string]*os.Root{}
	defer func() {
		for _, r := range roots {
			if r != nil {
				r.Close()
			}
		}
	}()
	for _, e := range g.entries {
		root, ok := roots[e.anchor]
		if !ok {
			root, _ = os.OpenRoot(e.anchor)
			roots[e.anchor] = root
		}
		if root == nil {
			continue
		}
		if ev, ok := e.enforce(root); ok && g.report != nil {
			g.report(ev)
		}
	}
}

// stop ends the watcher, then checks a last time.
func (g *gitGuard) stop() {
	if g == nil {
		return
	}
	if g.in != nil {
		g.in.Close()
		<-g.done
	}
	g.check()
}

// enforce removes e's path when it is there and must not be: it checks
// and removes through root, an os.Root at e's anchor, so a link a command put
// on the way is followed only inside that folder, and a link at the path
// itself is removed, never followed.
func (e guardEntry) enforce(root *os.Root) (event.Event, bool) {
	rel, err := filepath.Rel(e.anchor, e.path)
	if err != nil {
		return event.Event{}, false
	}
	replaced := false
	pfi, err := root.Stat(filepath.Dir(rel))
	switch {
	case err == nil:
		replaced = idOf(pfi) != e.parent
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return event.Event{}, false
	default:
		// A link leading out of the anchor, where a removal must not go:
		// git follows it all the same, so it is said.
		return event.Event{Type: event.SandboxDenial,
			Message: fmt.Sprintf("the sandbox found %s replaced by a link leading out of %s, made by a sandboxed command: git would run what it holds; it was not removed, check it before you run git there", filepath.Dir(e.path), e.anchor),
			Meta:    map[string]any{"kind": "file", "path": filepath.Dir(e.path), "rule": RuleGitProgram, "removed": false}}, true
	}
	if e.existed && !replaced {
		return event.Event{}, false
	}
	if _, err := root.Lstat(rel); err != nil {
		return event.Event{}, false
	}
	removed := root.RemoveAll(rel) == nil
	how := "created it"
	if replaced {
		how = "replaced the folder holding it"
	}
	msg := fmt.Sprintf("the sandbox removed %s: a sandboxed command %s, and %s, outside the sandbox", e.path, how, programWhy(e.path))
	if !removed {
		msg = fmt.Sprintf("the sandbox could not remove %s (a sandboxed command %s), and %s, outside the sandbox: remove it before you run git there", e.path, how, programWhy(e.path))
	}
	return event.Event{Type: event.SandboxDenial, Message: msg,
		Meta: map[string]any{"kind": "file", "path": e.path, "rule": RuleGitProgram, "removed": removed}}, true
}

// programWhy says what git does with a program file.
func programWhy(p string) string {
	switch filepath.Base(p) {
	case "hooks":
		return "git would run the hooks in it"
	case "commondir":
		return "git would read the config and run the hooks of the folder it names"
	default:
		return "git would run the programs it names (core.hooksPath, core.fsmonitor, aliases, filters)"
	}
}
