//go:build unix

package permission

import (
	"os"
	"syscall"
)

// extraLinks reports whether p is an existing file other than a folder
// with more than one hard link: writing it changes every other name of
// the same file, wherever those lie.
func extraLinks(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
