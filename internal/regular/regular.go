// Package regular opens files for reading only when they are regular
// files. A project can hold FIFOs, sockets and device nodes under any name
// (CLAUDE.md, .mcp.json, a file the model asks to Read); opening a FIFO for
// reading blocks until a writer appears, and reading a device may never
// end. Every place tandem reads a file it did not create goes through here,
// so nothing blocks on a special file.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
)

// NotRegularError reports a path that exists but is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (%s); tandem only reads regular files", e.Path, Kind(e.Mode))
}

// Kind names a file type for messages ("named pipe (FIFO)", "directory").
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeCharDevice != 0:
		return "character device"
	case t&fs.ModeDevice != 0:
		return "block device"
	case t&fs.ModeDir != 0:
		return "directory"
	case t&fs.ModeSymlink != 0:
		return "symbolic link"
	case t == 0:
		return "regular file"
	default:
		return t.String()
	}
}

// IsNotRegular reports whether err is (or wraps) a NotRegularError.
func IsNotRegular(err error) bool {
	var nr *NotRegularError
	return errors.As(err, &nr)
}

// Open opens path (following symlinks) for reading. It never blocks: the
// open is non-blocking, and anything but a regular file is closed again
// and reported as a *NotRegularError.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	return f, info, nil
}

// ReadFile reads a whole regular file (see Open). Grep and the checkpoint
// scans call it for every file of a tree, so on Unix it costs four system
// calls (open, fstat, one read sized by fstat, close) where an *os.File
// takes six.
func ReadFile(path string) ([]byte, error) { return readFileMax(path, nil, math.MaxInt64) }

// ReadFileReusing is ReadFile reading into buf's storage when it is large
// enough, for callers that read many files one after another and keep
// nothing of the bytes. A file larger than limit bytes is not read: the
// error is ErrTooLarge.
func ReadFileReusing(path string, buf []byte, limit int64) ([]byte, error) {
	return readFileMax(path, buf, limit)
}

// ErrTooLarge: the file is larger than the caller's bound.
var ErrTooLarge = errors.New("file too large")

// ReadCapped reads at most limit bytes of a regular file and reports
// whether there was more.
func ReadCapped(path string, limit int64) ([]byte, bool, error) {
	f, _, err := Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

// Check stats path (following symlinks) and reports a *NotRegularError for
// anything that exists but is neither a regular file nor, when dirOK, a
// directory. Tools that hand a path to another program (ripgrep) check it
// first, since that program would block on a FIFO.
func Check(path string, dirOK bool) (fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Mode().IsRegular() || (dirOK && info.IsDir()) {
		return info, nil
	}
	return info, &NotRegularError{Path: path, Mode: info.Mode()}
}
