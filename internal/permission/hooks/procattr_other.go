//go:build !linux

package hooks

import "syscall"

// commandAttr puts a hook command in its own process group.
func commandAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
