package hooks

import "syscall"

// commandAttr puts a hook command in its own process group and has the
// kernel kill it when the thread that started it ends; runOne holds that
// thread (runtime.LockOSThread) until the command has exited, so the
// signal means tandem died (kill -9), not that Go retired a thread.
func commandAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
