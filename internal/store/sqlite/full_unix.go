//go:build unix

package sqlite

import "syscall"

// noSpaceLeft reports whether the file system holding dir has (almost) no
// space left for an unprivileged writer.
func noSpaceLeft(dir string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return false
	}
	return uint64(st.Bavail)*uint64(st.Bsize) < 64<<10
}
