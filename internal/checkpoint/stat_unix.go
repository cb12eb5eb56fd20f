//go:build unix

package checkpoint

import (
	"io/fs"
	"syscall"
)

func statOf(fi fs.FileInfo) fileStat {
	st := fileStat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode().Perm())}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.Ino = uint64(s.Ino)
		st.Ctime = ctimeOf(s)
	}
	return st
}
