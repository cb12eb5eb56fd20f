package bridge

import "time"

// backoff is the wait before a reconnect: 1 s, doubling to 2 minutes.
type backoff struct{ n int }

const (
	backoffFirst = time.Second
	backoffMax   = 2 * time.Minute
)

func (b *backoff) next() time.Duration {
	d := backoffFirst << b.n
	if d >= backoffMax || d <= 0 {
		return backoffMax
	}
	b.n++
	return d
}

func (b *backoff) reset() { b.n = 0 }
