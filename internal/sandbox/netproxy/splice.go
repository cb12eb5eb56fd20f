package netproxy

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// splice copies a to b and b to a until both directions end, then closes
// both. One side's end of stream is passed on as a half-close, so
// protocols that finish writing before they finish reading work. With
// idle > 0, the pair is cut after idle with no byte either way (a quiet
// direction does not count while the other one moves).
func splice(a, b net.Conn, idle time.Duration) {
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pipe(b, a, idle, &last)
	}()
	pipe(a, b, idle, &last)
	wg.Wait()
	a.Close()
	b.Close()
}

// pipe copies src to dst. When src ends cleanly, dst is half-closed (or
// both are closed when dst cannot be); on any other end both are closed,
// so the opposite pipe ends too.
func pipe(dst, src net.Conn, idle time.Duration, last *atomic.Int64) {
	buf := make([]byte, 32<<10)
	for {
		if idle > 0 {
			src.SetReadDeadline(time.Now().Add(idle))
		}
		n, err := src.Read(buf)
		if n > 0 {
			last.Store(time.Now().UnixNano())
			if idle > 0 {
				dst.SetWriteDeadline(time.Now().Add(idle))
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				dst.Close()
				return
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded) && idle > 0 && time.Since(time.Unix(0, last.Load())) < idle:
			// The other direction moved: this quiet one waits on.
		case errors.Is(err, io.EOF):
			if closeWrite(dst) != nil {
				src.Close()
				dst.Close()
			}
			return
		default:
			src.Close()
			dst.Close()
			return
		}
	}
}
