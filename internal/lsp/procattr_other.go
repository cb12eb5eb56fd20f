//go:build !linux

package lsp

import "syscall"

// procAttr: a group of its own, killed whole when the session ends.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
