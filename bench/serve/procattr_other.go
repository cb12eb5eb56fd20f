//go:build !linux

package main

import "syscall"

// diesWithBench: outside Linux there is no parent-death signal; the bench
// stops its replicas when it ends, an interrupted run may leave them.
func diesWithBench() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
