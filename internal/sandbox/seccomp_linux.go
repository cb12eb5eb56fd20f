package sandbox

import (
	"fmt"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// refusedSyscalls are what a coding task never needs: looking into or
// steering other processes, changing mounts, loading kernel code, the
// kernel keyring, io_uring (it makes sockets and opens files without the
// syscalls the rest of this filter sees), the clock, rebooting.
var refusedSyscalls = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"add_key", "request_key", "keyctl",
	"swapon", "swapoff", "reboot", "acct", "settimeofday", "clock_settime", "clock_adjtime",
}

// socket types with the flags a caller may add.
func withSockFlags(t uint64) []uint64 {
	return []uint64{t, t | unix.SOCK_NONBLOCK, t | unix.SOCK_CLOEXEC, t | unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC}
}

// seccompPolicy is the filter: refusedSyscalls, raw and packet sockets
// (they bypass the proxy and can forge traffic), TIOCSTI (typing into the
// user's terminal) and, without a network namespace, UDP over IP (the
// Landlock TCP rules do not cover it: DNS tunnels). Each refusal is EPERM.
func seccompPolicy(noUDP bool) seccomp.Policy {
	deny := seccomp.ActionErrno | seccomp.Action(unix.EPERM)
	var conds []seccomp.NameWithConditions
	for _, t := range withSockFlags(unix.SOCK_RAW) {
		conds = append(conds, seccomp.NameWithConditions{Name: "socket", Conditions: []seccomp.Condition{
			{Argument: 1, Operation: seccomp.Equal, Value: t}}})
	}
	conds = append(conds, seccomp.NameWithConditions{Name: "socket", Conditions: []seccomp.Condition{
		{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_PACKET}}})
	if noUDP {
		for _, family := range []uint64{unix.AF_INET, unix.AF_INET6} {
			for _, t := range withSockFlags(unix.SOCK_DGRAM) {
				conds = append(conds, seccomp.NameWithConditions{Name: "socket", Conditions: []seccomp.Condition{
					{Argument: 0, Operation: seccomp.Equal, Value: family},
					{Argument: 1, Operation: seccomp.Equal, Value: t}}})
			}
		}
	}
	conds = append(conds, seccomp.NameWithConditions{Name: "ioctl", Conditions: []seccomp.Condition{
		{Argument: 1, Operation: seccomp.Equal, Value: unix.TIOCSTI}}})
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: deny, Names: refusedSyscalls},
			{Action: deny, NamesWithCondtions: conds},
		},
	}
}

// applySeccomp loads the filter on the calling thread (no_new_privs is
// already set by applyLandlock). A call made through another architecture's
// entry (int 0x80 on x86-64) is refused outright: the library's filter
// would let it through as not its architecture.
func applySeccomp(noUDP bool) error {
	prog, err := seccompProgram(noUDP)
	if err != nil {
		return err
	}
	return loadSeccomp(prog)
}

// seccompProgram assembles the filter once; loadSeccomp puts it on a
// thread (the session's sandbox process keeps one for every command).
func seccompProgram(noUDP bool) (*unix.SockFprog, error) {
	pol := seccompPolicy(noUDP)
	insts, err := pol.Assemble()
	if err != nil {
		return nil, fmt.Errorf("assemble seccomp filter: %w", err)
	}
	native, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	guard := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.EPERM)},
	}
	raw, err := bpf.Assemble(append(guard, insts...))
	if err != nil {
		return nil, fmt.Errorf("assemble seccomp filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return &unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}, nil
}

// loadSeccomp loads prog on the calling thread only (no TSYNC): what the
// thread starts inherits it.
func loadSeccomp(prog *unix.SockFprog) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(prog))); e != 0 {
		return fmt.Errorf("load seccomp filter: %w", e)
	}
	return nil
}

// seccompAvailable reports whether seccomp filters can be loaded.
func seccompAvailable() bool { return seccomp.Supported() }
