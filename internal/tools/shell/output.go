package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"
)

// maxInline is how much command output the model sees at most; the rest
// goes to a spill file whose path the result names.
const maxInline = 30000

// maxSpill bounds the spill file so a runaway command cannot fill the disk.
const maxSpill = 256 << 20

// collector gathers a command's interleaved output. Memory stays bounded:
// everything is kept until maxInline is exceeded, then only the head and the
// tail stay in memory while the whole stream goes to a spill file.
type collector struct {
	mu        sync.Mutex
	limit     int
	dir       string // where the spill file goes
	prefix    string
	buf       []byte // everything, until truncated
	head      []byte
	tail      []byte
	total     int64
	spill     *os.File
	spillPath string
	spilled   int64
	spillErr  error
}

func newCollector(dir, prefix string, limit int) *collector {
	return &collector{dir: dir, prefix: prefix, limit: limit}
}

func (c *collector) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if c.head == nil && len(c.buf)+len(p) <= c.limit {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	if c.head == nil {
		c.startSpill()
	}
	c.writeSpill(p)
	half := c.limit / 2
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*half {
		c.tail = append(c.tail[:0:0], c.tail[len(c.tail)-half:]...)
	}
	return len(p), nil
}

// startSpill switches to head+tail mode, moving what was kept so far into
// the spill file.
func (c *collector) startSpill() {
	half := c.limit / 2
	c.head = append([]byte{}, c.buf[:min(half, len(c.buf))]...)
	c.tail = append([]byte{}, c.buf[max(0, len(c.buf)-half):]...)
	f, path, err := createSpill(c.dir, c.prefix)
	if err != nil {
		c.spillErr = err
	} else {
		c.spill, c.spillPath = f, path
	}
	c.writeSpill(c.buf)
	c.buf = nil
}

func (c *collector) writeSpill(p []byte) {
	if c.spill == nil || c.spilled >= maxSpill {
		return
	}
	if rest := maxSpill - c.spilled; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.spill.Write(p)
	c.spilled += int64(n)
	if err != nil && c.spillErr == nil {
		c.spillErr = err
	}
}

// finish closes the spill file and returns the text for the model, whether
// it was truncated, and the spill file path ("" if none).
func (c *collector) finish() (text string, truncated bool, spillPath string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spill != nil {
		c.spill.Close()
		c.spill = nil
	}
	if c.head == nil {
		return string(c.buf), false, ""
	}
	half := c.limit / 2
	tail := c.tail
	if len(tail) > half {
		tail = tail[len(tail)-half:]
	}
	omitted := c.total - int64(len(c.head)) - int64(len(tail))
	where := "the full output is in " + c.spillPath
	if c.spillPath == "" {
		where = fmt.Sprintf("the full output could not be saved: %v", c.spillErr)
	} else if c.spilled >= maxSpill {
		where = fmt.Sprintf("the first %d MiB are in %s", maxSpill>>20, c.spillPath)
	}
	marker := fmt.Sprintf("\n\n... [%d bytes of output truncated; %s] ...\n\n", omitted, where)
	return string(trimRuneEnd(c.head)) + marker + string(trimRuneStart(tail)), true, c.spillPath
}

func createSpill(dir, prefix string) (*os.File, string, error) {
	if dir == "" {
		dir = os.TempDir()
	} else {
		dir = filepath.Join(dir, "tool-output")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("create spill folder %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, prefix+"-*.log")
	if err != nil {
		return nil, "", fmt.Errorf("create spill file in %s: %w", dir, err)
	}
	return f, f.Name(), nil
}

// trimRuneEnd drops an incomplete UTF-8 sequence at the end of b.
func trimRuneEnd(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		r := b[len(b)-i]
		if r < utf8.RuneSelf {
			return b
		}
		if utf8.RuneStart(r) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// trimRuneStart drops UTF-8 continuation bytes at the start of b.
func trimRuneStart(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// splitIncomplete splits b into a part ending on a rune boundary and an
// incomplete trailing sequence to hold back until more bytes arrive.
func splitIncomplete(b []byte) (complete, rest []byte) {
	c := trimRuneEnd(b)
	return c, b[len(c):]
}
