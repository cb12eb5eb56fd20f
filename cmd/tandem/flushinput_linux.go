package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed on the terminal in but not read yet:
// type-ahead must not answer the question about to be asked. Anything
// other than a terminal is left alone.
func flushInput(in io.Reader) {
	if f, ok := in.(*os.File); ok {
		_ = unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH) // not a terminal: ENOTTY, nothing to discard
	}
}
