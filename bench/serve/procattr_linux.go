package main

import "syscall"

// diesWithBench: a replica the bench started is killed with it, so an
// interrupted run leaves no server behind.
func diesWithBench() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
