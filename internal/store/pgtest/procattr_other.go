//go:build !linux

package pgtest

import "syscall"

// serverProcAttr starts postgres as cred in a process group of its own.
// Outside Linux there is no parent-death signal: a killed test run can
// leave its server running (Close stops it otherwise).
func serverProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}
