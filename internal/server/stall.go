package server

import (
	"context"
	"net"
)

// connKey carries a request's connection in its context (ConnContext).
type connKey struct{}

// ConnContext is the http.Server ConnContext that lets the event stream
// see its connection's TCP progress; Serve sets it, and a caller serving
// Handler itself should too.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// stallWatch notices an SSE client that stopped reading while its kernel
// buffers still take our writes (a write then succeeds and its deadline
// never fires, so such a client was kept forever, ever further behind):
// at each keep-alive it compares what the peer has acknowledged with the
// last look. Nothing acknowledged for a whole keep-alive period while
// bytes wait for the peer means it reads nothing: the stream drops it,
// and it resumes with Last-Event-ID when it wakes.
type stallWatch struct {
	conn    net.Conn
	acked   uint64
	waiting bool
	seen    bool
}

func newStallWatch(ctx context.Context) *stallWatch {
	c, _ := ctx.Value(connKey{}).(net.Conn)
	return &stallWatch{conn: c}
}

// stalled reports whether the peer acknowledged nothing since the last
// call although bytes were waiting for it then and are still.
func (w *stallWatch) stalled() bool {
	if w.conn == nil {
		return false
	}
	acked, queued, ok := tcpProgress(w.conn)
	if !ok {
		return false
	}
	stalled := w.seen && w.waiting && queued > 0 && acked == w.acked
	w.acked, w.waiting, w.seen = acked, queued > 0, true
	return stalled
}
