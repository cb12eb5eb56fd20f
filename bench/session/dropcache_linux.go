package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropFromCache writes path's pages to disk and asks the kernel to forget
// them, so the next exec reads the file back from disk.
func dropFromCache(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
