//go:build unix

package regular

import "syscall"

// nonBlock makes opening a FIFO return at once instead of waiting for a
// writer, and keeps a terminal device from becoming tandem's controlling
// terminal; it changes nothing for regular files.
const nonBlock = syscall.O_NONBLOCK | syscall.O_NOCTTY
