//go:build unix

package app

import "syscall"

// syscallNonblock keeps opening a FIFO for writing from blocking.
const syscallNonblock = syscall.O_NONBLOCK
