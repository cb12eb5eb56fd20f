package shell

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/tandem-agent/tandem/internal/tool"
)

// cwdKey holds the shell's working folder in tool.State.
const cwdKey = "shell.cwd"

type cwdState struct {
	mu  sync.Mutex
	dir string // "" until the first cd; then an absolute, symlink-free path
}

func loadCwd(env *tool.Env) *cwdState {
	return env.State.Load(cwdKey, func() any { return &cwdState{} }).(*cwdState)
}

// CurrentDir returns the folder the next Bash command runs in: where the
// last command left the shell, or the session's WorkDir before any cd (or
// when that folder has since disappeared).
func CurrentDir(env *tool.Env) string {
	if env == nil {
		return ""
	}
	st := loadCwd(env)
	st.mu.Lock()
	dir := st.dir
	st.mu.Unlock()
	if dir == "" {
		return env.WorkDir
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return env.WorkDir
	}
	return dir
}

// reportedDir returns the last line the shell's exit trap wrote to the cwd
// pipe. It is called after the shell exited, so that write is complete; it
// reads only what is buffered and never waits for end of file, because a
// background child (`server &`) may hold the pipe's write end open.
func reportedDir(r *os.File) string {
	rc, err := r.SyscallConn()
	if err != nil {
		return ""
	}
	var got []byte
	buf := make([]byte, 4096)
	_ = rc.Read(func(fd uintptr) bool {
		for {
			n, err := syscall.Read(int(fd), buf)
			if err == syscall.EINTR {
				continue
			}
			if n <= 0 {
				return true // end of file, nothing buffered (EAGAIN) or an error
			}
			got = append(got, buf[:n]...)
		}
	})
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	return lines[len(lines)-1]
}

// updateCwd records where a command left the shell. A folder outside the
// session's roots is refused (the next command starts in WorkDir again) and
// the returned note tells the model so.
func updateCwd(env *tool.Env, newDir string) (note string) {
	newDir = strings.TrimSpace(newDir)
	if newDir == "" || !filepath.IsAbs(newDir) {
		return ""
	}
	st := loadCwd(env)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !withinRoots(newDir, env.Roots, env.WorkDir) {
		st.dir = ""
		return "Shell cwd was reset to " + env.WorkDir + " because " + newDir +
			" is outside the session's folders (the working folder and --add-dir folders)."
	}
	st.dir = newDir
	return ""
}

// withinRoots reports whether dir lies in one of roots. pwd -P resolves
// symlinks, so roots are resolved too before comparing.
func withinRoots(dir string, roots []string, workDir string) bool {
	if len(roots) == 0 {
		roots = []string{workDir}
	}
	for _, r := range roots {
		if r == "" {
			continue
		}
		for _, cand := range []string{filepath.Clean(r), resolved(r)} {
			if isUnder(dir, cand) {
				return true
			}
		}
	}
	return false
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func isUnder(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}
