package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// stdinWait is how long a run that already has a prompt (-p or arguments)
// waits for piped input to begin. A caller that leaves standard input open
// without writing to it (a CI runner, a parent process, ssh) must not hang
// the run; Claude Code waits the same 3 s.
const stdinWait = 3 * time.Second

// readStdin reads standard input whole (up to 16 MiB). With wait > 0 it
// gives up when no byte (nor end of input) arrives within wait and reports
// timedOut; once input has begun it is read to the end however long that
// takes (a slow `git diff` is fine).
func readStdin(stdin io.Reader, wait time.Duration) (data string, timedOut bool, err error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	started := make(chan struct{})
	go func() {
		b, err := io.ReadAll(&startSignal{r: io.LimitReader(stdin, 16<<20), started: started})
		done <- result{b, err}
	}()
	if wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-started:
		case <-timer.C:
			// The reading goroutine stays blocked; the process ends soon.
			return "", true, nil
		}
	}
	r := <-done
	if r.err != nil {
		return "", false, fmt.Errorf("read the prompt from standard input: %w", r.err)
	}
	return string(r.data), false, nil
}

// startSignal closes started at the first read that returns data, an
// error or end of input.
type startSignal struct {
	r       io.Reader
	started chan struct{}
	once    sync.Once
}

func (s *startSignal) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 || err != nil {
		s.once.Do(func() { close(s.started) })
	}
	return n, err
}
