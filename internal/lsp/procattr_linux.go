package lsp

import "syscall"

// procAttr: a group of its own (killed whole), and killed if tandem dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
