//go:build !linux

package shell

import "syscall"

// Elsewhere there is no portable way to read another process's
// environment; process groups still stop what stays in them.
func taggedPids(string) []int { return nil }

func processAlive(int) bool { return false }

func startTime(int) (uint64, bool) { return 0, false }

// commandAttr puts a command in its own process group (no death signal
// outside Linux).
func commandAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
