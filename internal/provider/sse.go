package provider

import (
	"bufio"
	"bytes"
	"io"
)

// ReadEvents calls fn with the data of each server-sent event read from r
// (its data lines joined by newlines, as the SSE format says) until r ends
// or fn fails; comments (keep-alives), event names, ids and [DONE] are
// skipped. An event the body ended in the middle of a line of is dropped:
// its data is cut, and the caller's check for a complete response says the
// stream ended early. One the body ended after without the closing blank
// line is delivered. fn must not keep data past its return.
func ReadEvents(r io.Reader, fn func(data []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 32<<20)
	cut := false
	sc.Split(func(buf []byte, atEOF bool) (int, []byte, error) {
		n, tok, err := bufio.ScanLines(buf, atEOF)
		if tok != nil {
			cut = bytes.IndexByte(buf[:n], '\n') < 0
		}
		return n, tok, err
	})
	var data []byte
	pending := false
	dispatch := func() error {
		if !pending {
			return nil
		}
		pending = false
		if bytes.Equal(data, []byte("[DONE]")) {
			return nil
		}
		return fn(data)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if err := dispatch(); err != nil {
				return err
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if pending {
			data = append(data, '\n')
		} else {
			data, pending = data[:0], true
		}
		data = append(data, value...)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if cut {
		return nil
	}
	return dispatch()
}
