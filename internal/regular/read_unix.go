//go:build unix

package regular

import (
	"io/fs"
	"os"
	"syscall"
)

// readFileMax uses the descriptor directly: an *os.File would also try to
// add a regular file to the poller (one failing epoll_ctl) and read twice
// to see the end.
func readFileMax(path string, buf []byte, limit int64) ([]byte, error) {
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|nonBlock, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := retryEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		info, err := os.Stat(path)
		mode := fs.ModeIrregular
		if err == nil {
			mode = info.Mode()
		}
		return nil, &NotRegularError{Path: path, Mode: mode}
	}
	if st.Size > limit {
		return nil, ErrTooLarge
	}
	// One byte more than the size, so a file read whole ends with a short
	// read and needs no second call to see the end; one that grew since
	// fstat is read on to its end.
	if want := int(max(st.Size, 0)) + 1; cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		var n int
		err := retryEINTR(func() (err error) {
			n, err = syscall.Read(fd, buf[len(buf):cap(buf)])
			return err
		})
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, ErrTooLarge // it grew past the bound while read
		}
		if len(buf) < cap(buf) && int64(len(buf)) >= st.Size {
			return buf, nil
		}
	}
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
