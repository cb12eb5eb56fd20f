package server

import (
	"net"

	"golang.org/x/sys/unix"
)

// tcpProgress is the bytes the peer has acknowledged on c and the bytes
// still queued to it (sent and unacknowledged, or not sent yet).
func tcpProgress(c net.Conn) (acked uint64, queued int, ok bool) {
	tc, isTCP := c.(*net.TCPConn)
	if !isTCP {
		return 0, 0, false
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	cerr := raw.Control(func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return
		}
		q, err := unix.IoctlGetInt(int(fd), unix.SIOCOUTQ)
		if err != nil {
			return
		}
		acked, queued, ok = info.Bytes_acked, q, true
	})
	return acked, queued, ok && cerr == nil
}
