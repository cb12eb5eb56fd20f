package main

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns a pseudo-terminal's controlling side and its terminal.
func openPTY(t *testing.T) (ctl, term *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ctl.Close() })
	fd := int(ctl.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	term, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	t.Cleanup(func() { term.Close() })
	return ctl, term
}

// What was typed on the terminal before a question and not read yet is
// thrown away; what is typed after it is read.
func TestFlushInputDiscardsTypeAhead(t *testing.T) {
	t.Parallel()
	ctl, term := openPTY(t)
	if _, err := ctl.WriteString("y\n"); err != nil {
		t.Fatal(err)
	}
	// The line discipline has the line once the echo comes back.
	echo := make([]byte, 16)
	if _, err := ctl.Read(echo); err != nil {
		t.Fatal(err)
	}
	flushInput(term)
	if _, err := ctl.WriteString("n\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, err := term.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]); got != "n\n" {
		t.Fatalf("read %q after the flush, want only the line typed after it", got)
	}
}
