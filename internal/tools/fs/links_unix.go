//go:build unix

package fs

import (
	"os"
	"syscall"
)

// linkCount returns how many names the file has (1 when unknown).
func linkCount(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
