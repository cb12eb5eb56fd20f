package shell

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"regexp"
	"sync"
)

// ringCap is how much of a background job's latest output stays in memory;
// the whole output goes to the job's log file (up to maxSpill).
const ringCap = 64 << 10

// jobLog records a background job's output with bounded memory.
type jobLog struct {
	mu        sync.Mutex
	file      *os.File
	path      string
	fileBytes int64
	total     int64
	ring      []byte
	ringStart int64 // offset of ring[0] in the whole output
}

func newJobLog(dataDir, session, id string) *jobLog {
	l := &jobLog{}
	if f, err := createSpill(dataDir, session, "bash-"+id); err == nil {
		l.file, l.path = f, f.Name()
	}
	return l
}

func (l *jobLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil && l.fileBytes < maxSpill {
		q := p
		if rest := maxSpill - l.fileBytes; int64(len(q)) > rest {
			q = q[:rest]
		}
		n, _ := l.file.Write(q)
		l.fileBytes += int64(n)
	}
	l.total += int64(len(p))
	l.ring = append(l.ring, p...)
	if len(l.ring) > 2*ringCap {
		drop := len(l.ring) - ringCap
		l.ring = append(l.ring[:0:0], l.ring[drop:]...)
		l.ringStart += int64(drop)
	}
	return len(p), nil
}

func (l *jobLog) close() {
	l.mu.Lock()
	if l.file != nil {
		l.file.Close()
	}
	l.mu.Unlock()
}

// readSince returns output written after pos (at most maxInline bytes: the
// latest), the new position and how many bytes were skipped.
func (l *jobLog) readSince(pos int64) (data []byte, next int64, skipped int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	from := pos
	if l.total-from > maxInline {
		from = l.total - maxInline
	}
	if from < l.ringStart {
		from = l.ringStart
	}
	data = append([]byte{}, l.ring[from-l.ringStart:]...)
	return trimRuneStart(data), l.total, from - pos
}

// filterSince returns the lines written after pos that match re, reading
// the log file when the memory ring no longer holds them.
func (l *jobLog) filterSince(pos int64, re *regexp.Regexp) (lines []string, next int64, cut bool) {
	l.mu.Lock()
	total, ringStart, path := l.total, l.ringStart, l.path
	var r io.Reader
	if pos >= ringStart || path == "" {
		from := max(pos, ringStart)
		r = bytes.NewReader(append([]byte{}, l.ring[from-ringStart:]...))
	}
	fileBytes := l.fileBytes
	l.mu.Unlock()
	if r == nil {
		f, err := os.Open(path)
		if err != nil {
			return nil, total, false
		}
		defer f.Close()
		r = io.NewSectionReader(f, pos, min(total, fileBytes)-pos)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	size := 0
	for sc.Scan() {
		line := sc.Text()
		if !re.MatchString(line) {
			continue
		}
		if size+len(line) > maxInline {
			cut = true
			continue
		}
		size += len(line) + 1
		lines = append(lines, line)
	}
	return lines, total, cut
}
