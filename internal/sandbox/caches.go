package sandbox

import (
	"os"
	"path/filepath"
)

// makeCaches makes the missing cache folders dirs of an installed
// toolchain (one of prof's programs on path). A Landlock rule needs an
// existing folder, so a cache the toolchain would make on its first run
// could not be made inside the sandbox, and the first `go build` (or a
// language server's package load) in a fresh home failed with "permission
// denied". A folder that cannot be made stays as it was: unwritable
// inside, as before. Toolchains that are not installed get nothing, so
// homes do not fill with empty folders of tools nobody uses.
func makeCaches(prof Profile, dirs []string, path string) {
	if !installed(prof.Programs, path) {
		return
	}
	for _, d := range dirs {
		if _, err := os.Lstat(d); os.IsNotExist(err) {
			_ = os.MkdirAll(d, 0o755)
		}
	}
}

// installed reports whether one of programs is an executable file in a
// folder of path (a PATH list).
func installed(programs []string, path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		for _, p := range programs {
			if fi, err := os.Stat(filepath.Join(dir, p)); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return true
			}
		}
	}
	return false
}
