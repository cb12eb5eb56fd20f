package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The ACP SDK reads its input with a bufio.Scanner capped at 10 MiB and
// ends the connection on a longer line; it logs and skips a line that is
// not a JSON-RPC object, so a client waits forever for the answer. The
// frame filter stands between the client and the SDK: it reads every line
// itself and hands the SDK only lines it will take, answering the rest
// as JSON-RPC 2.0 says.
const (
	// sdkLineLimit is the longest line the SDK's scanner takes (its
	// buffer holds the line and its newline).
	sdkLineLimit = 10<<20 - 1
	// frameKeep is how much of a longer line is kept to find its id
	// and method; the rest is read and dropped.
	frameKeep = 64 << 20
)

// JSON-RPC 2.0 error codes the filter answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// lockedWriter serialises whole-message writes of the SDK and the filter
// onto one stream (the SDK writes each message in one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// frameFilter copies the client's lines from in to the SDK's pipe,
// answering on out what the SDK would drop: an unparseable line (-32700,
// id null), a batch or a non-request (-32600, id null), a request over
// the SDK's limit (-32600 with its id). An answer over the limit to one
// of tandem's own requests reaches the SDK as a -32603 error for that
// request, so the call that asked fails instead of the connection.
type frameFilter struct {
	in  io.Reader
	sdk *io.PipeWriter
	out io.Writer
	log io.Writer
}

// filterFrames starts the filter and returns what the SDK reads.
func filterFrames(in io.Reader, out io.Writer, log io.Writer) io.Reader {
	pr, pw := io.Pipe()
	f := &frameFilter{in: in, sdk: pw, out: out, log: log}
	go f.run()
	return pr
}

func (f *frameFilter) run() {
	br := bufio.NewReaderSize(f.in, 1<<20)
	for {
		line, size, err := readLine(br, frameKeep)
		if size > 0 {
			if werr := f.line(line, size); werr != nil {
				f.sdk.CloseWithError(werr)
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			f.sdk.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line, keeping at most keep bytes of it; size is the
// line's whole length (without the newline).
func readLine(br *bufio.Reader, keep int) (line []byte, size int, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			n-- // the newline
		}
		if room := keep - len(line); room > 0 {
			line = append(line, chunk[:min(n, room)]...)
		}
		size += n
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, size, err
		}
	}
}

// envelope is the part of a message the filter reads: what the SDK needs
// to route it.
type envelope struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
}

// isResponse says a message without id and method is a response (to
// nothing: id null); decoded only for such messages, since a result may
// be megabytes.
func isResponse(b []byte) bool {
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	return json.Unmarshal(b, &r) == nil && (r.Result != nil || r.Error != nil)
}

func (f *frameFilter) line(line []byte, size int) error {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil
	}
	if size > sdkLineLimit {
		return f.oversized(trimmed, size)
	}
	if !json.Valid(trimmed) {
		return f.answer(nil, codeParseError, "parse error: the line is not JSON; send one JSON-RPC 2.0 object per line")
	}
	if trimmed[0] == '[' {
		return f.answer(nil, codeInvalidRequest, "batches are not supported: send each request as its own line")
	}
	var env envelope
	bad := trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil
	if !bad && env.ID == nil && env.Method == "" && isResponse(trimmed) {
		// A response to nothing (id null): answering it could start a loop.
		fmt.Fprintf(f.log, "tandem acp: dropped a response without an id: %.200s\n", trimmed)
		return nil
	}
	if bad || (env.ID == nil && env.Method == "") {
		return f.answer(env.ID, codeInvalidRequest, "invalid request: a JSON-RPC 2.0 object with a string method (and an id for a request), or an id with a result or error, is expected")
	}
	_, err := f.sdk.Write(append(trimmed, '\n'))
	return err
}

// oversized answers a line longer than the SDK takes.
func (f *frameFilter) oversized(kept []byte, size int) error {
	env := peekEnvelope(kept)
	msg := fmt.Sprintf("message of %d bytes is over the %d MiB a message may have on tandem's ACP connection", size, (sdkLineLimit+1)>>20)
	switch {
	case env.ID != nil && env.Method == "":
		// An answer to tandem's own request: the request fails, not the connection.
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": env.ID, "error": map[string]any{"code": codeInternalError, "message": msg}})
		if err != nil {
			return err
		}
		_, err = f.sdk.Write(append(b, '\n'))
		return err
	case env.Method != "" && env.ID == nil:
		fmt.Fprintf(f.log, "tandem acp: dropped the %s notification: %s\n", env.Method, msg)
		return nil
	}
	return f.answer(env.ID, codeInvalidRequest, msg+": send less (attach large files as resource links)")
}

// peekEnvelope reads the top-level id and method of a message that may
// be cut short, stopping at the first value it cannot read.
func peekEnvelope(b []byte) envelope {
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return env
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return env
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return env
		}
		switch key {
		case "id":
			if string(raw) != "null" {
				env.ID = &raw
			}
		case "method":
			_ = json.Unmarshal(raw, &env.Method)
		}
	}
	return env
}

// answer writes a JSON-RPC error response (id null when id is nil).
func (f *frameFilter) answer(id *json.RawMessage, code int, message string) error {
	var rid any
	if id != nil {
		rid = id
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rid, "error": map[string]any{"code": code, "message": message}})
	if err != nil {
		return err
	}
	// A client that stopped reading is the SDK's to notice; the filter
	// goes on reading.
	_, _ = f.out.Write(append(b, '\n'))
	return nil
}
