//go:build !unix

package checkpoint

import "io/fs"

func statOf(fi fs.FileInfo) fileStat {
	return fileStat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode().Perm())}
}
