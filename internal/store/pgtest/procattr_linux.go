package pgtest

import "syscall"

// serverProcAttr starts postgres as cred in a process group of its own
// that dies with the test process (SIGQUIT: postgres's immediate
// shutdown), so a killed test run leaves no server behind.
func serverProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
}
