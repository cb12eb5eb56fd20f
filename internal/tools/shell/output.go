package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/tandem-agent/tandem/internal/tool"
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
	dataDir   string // the spill file goes to tool.SpillDir(dataDir, session)
	session   string
	prefix    string
	create    func() (*os.File, error)
	buf       []byte // everything, until truncated
	head      []byte
	tail      []byte
	total     int64
	spill     *os.File
	spillPath string
	spilled   int64
	spillErr  error
}

func newCollector(dataDir, session, prefix string, limit int) *collector {
	c := &collector{dataDir: dataDir, session: session, prefix: prefix, limit: limit}
	c.create = func() (*os.File, error) { return createSpill(dataDir, session, prefix) }
	return c
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
	f, err := c.create()
	if err != nil {
		c.spillErr = err
	} else {
		c.spill, c.spillPath = f, f.Name()
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
		c.spillErr = tool.SpillError(filepath.Dir(c.spillPath), err)
		// Nothing more can be saved; stop trying.
		c.spill.Close()
		c.spill = nil
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
	switch {
	case c.spillPath == "":
		where = fmt.Sprintf("the full output could not be saved: %v", c.spillErr)
	case c.spillErr != nil:
		where = fmt.Sprintf("only the first %d bytes were saved, in %s: %v", c.spilled, c.spillPath, c.spillErr)
	case c.spilled >= maxSpill:
		where = fmt.Sprintf("the first %d MiB are in %s", maxSpill>>20, c.spillPath)
	}
	marker := fmt.Sprintf("\n\n... [%d bytes of output truncated; %s] ...\n\n", omitted, where)
	return string(trimRuneEnd(c.head)) + marker + string(trimRuneStart(tail)), true, c.spillPath
}

// createSpill makes a spill file for the session, keeping the folder under
// tool.SpillCap.
func createSpill(dataDir, session, prefix string) (*os.File, error) {
	return tool.CreateSpill(dataDir, session, prefix, maxSpill)
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
