package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Landlock calls, on the calling thread only. go-landlock's syscall
// package would do, but it links libcap/psx (which, built with cgo, wraps
// pthread_create in the whole binary) for its all-threads calls, which the
// launcher does not want: it restricts one thread and starts the command
// from it. golang.org/x/sys/unix carries the constants.

const (
	llExecute   = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llWriteFile = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llReadFile  = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir   = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llRemoveDir = unix.LANDLOCK_ACCESS_FS_REMOVE_DIR
	llRemoveReg = unix.LANDLOCK_ACCESS_FS_REMOVE_FILE
	llMakeChar  = unix.LANDLOCK_ACCESS_FS_MAKE_CHAR
	llMakeDir   = unix.LANDLOCK_ACCESS_FS_MAKE_DIR
	llMakeReg   = unix.LANDLOCK_ACCESS_FS_MAKE_REG
	llMakeSock  = unix.LANDLOCK_ACCESS_FS_MAKE_SOCK
	llMakeFifo  = unix.LANDLOCK_ACCESS_FS_MAKE_FIFO
	llMakeBlock = unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
	llMakeSym   = unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llRefer     = unix.LANDLOCK_ACCESS_FS_REFER
	llTruncate  = unix.LANDLOCK_ACCESS_FS_TRUNCATE

	llConnectTCP = 1 << 1 // LANDLOCK_ACCESS_NET_CONNECT_TCP (ABI 4)

	llScopeAbstractUnix = 1 << 0 // LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (ABI 6)
	llScopeSignal       = 1 << 1 // LANDLOCK_SCOPE_SIGNAL (ABI 6)

	llRuleNetPort = 2 // LANDLOCK_RULE_NET_PORT
)

// llRulesetAttr is struct landlock_ruleset_attr up to ABI 6.
type llRulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

type llPathBeneath struct {
	allowed  uint64
	parentFD int32
}

type llNetPort struct {
	allowed uint64
	port    uint64
}

func llCreateRuleset(attr *llRulesetAttr) (int, error) {
	// An older kernel takes the longer struct as long as the fields it
	// does not know are zero (they are: the caller sets them by ABI).
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(attr)), unsafe.Sizeof(*attr), 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

func llAddPath(ruleset int, allowed uint64, parent int) error {
	a := llPathBeneath{allowed: allowed, parentFD: int32(parent)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&a)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func llAddPort(ruleset int, allowed uint64, port int) error {
	a := llNetPort{allowed: allowed, port: uint64(port)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), llRuleNetPort, uintptr(unsafe.Pointer(&a)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func llRestrictSelf(ruleset int) error {
	_, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// landlockABI is the kernel's Landlock ABI version, 0 when unavailable.
func landlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}
