package secrets

import (
	"io"
	"sync"
)

// Writer redacts a stream before passing it on. It holds back the last
// Overlap bytes of what it has seen so that a value split across two
// writes is still caught; Flush sends the rest (call it when the stream
// ends).
type Writer struct {
	mu      sync.Mutex
	r       *Redactor
	w       io.Writer
	pending []byte
}

// NewWriter returns w itself when there is nothing to redact.
func (r *Redactor) NewWriter(w io.Writer) io.Writer {
	if r.Empty() {
		return w
	}
	return &Writer{r: r, w: w}
}

func (x *Writer) Write(p []byte) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.pending = append(x.pending, p...)
	clean := []byte(x.r.Redact(string(x.pending)))
	keep := min(x.r.Overlap(), len(clean))
	out := clean[:len(clean)-keep]
	x.pending = append(x.pending[:0], clean[len(clean)-keep:]...)
	if len(out) > 0 {
		if _, err := x.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is held back.
func (x *Writer) Flush() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.pending) == 0 {
		return nil
	}
	_, err := x.w.Write([]byte(x.r.Redact(string(x.pending))))
	x.pending = x.pending[:0]
	return err
}

// Flush flushes w when it is a redacting Writer.
func Flush(w io.Writer) {
	if x, ok := w.(*Writer); ok {
		_ = x.Flush()
	}
}
