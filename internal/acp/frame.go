package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	acpsdk "github.com/coder/acp-go-sdk"
)

// The ACP SDK reads its input with a bufio.Scanner capped at 10 MiB and
// ends the connection on a longer line; it logs and skips a line that is
// not a JSON-RPC object, so a client waits forever for the answer. The
// frame filter stands between the client and the SDK: it reads every line
// itself and hands the SDK only lines it will take, answering the rest
// as JSON-RPC 2.0 says. A line over the SDK's limit and at most frameCap
// reaches it with its large strings in the connection's spool (spool.go).
const (
	// sdkLineLimit is the longest line the SDK's scanner takes (its
	// buffer holds the line and its newline).
	sdkLineLimit = 10<<20 - 1
	// frameCap is the longest message tandem takes; of a longer line this
	// much is kept to find its id and method, the rest is read and dropped.
	frameCap = 64 << 20
)

// JSON-RPC 2.0 error codes the filter answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// frameFilter copies the client's lines from in to the SDK's pipe,
// answering on out what the SDK would drop: an unparseable line (-32700,
// id null), a batch or a non-request (-32600, id null), a request over
// frameCap (-32600 with its id). A line over the SDK's limit reaches it
// with its large strings spooled; an answer to one of tandem's requests
// that still cannot reach it does as a -32603 error for that request, so
// the call that asked fails instead of the connection.
type frameFilter struct {
	in  io.Reader
	sdk *io.PipeWriter
	w   *wire
}

// filterFrames starts the filter and returns what the SDK reads; w is
// where both write.
func filterFrames(in io.Reader, w *wire) io.Reader {
	pr, pw := io.Pipe()
	w.sdk = pw
	f := &frameFilter{in: in, sdk: pw, w: w}
	go f.run()
	return pr
}

func (f *frameFilter) run() {
	br := bufio.NewReaderSize(f.in, 1<<20)
	for {
		line, size, err := readLine(br, frameCap)
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
	if size > frameCap {
		return f.overCap(trimmed, size)
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
		fmt.Fprintf(f.w.log, "tandem acp: dropped a response without an id: %.200s\n", trimmed)
		return nil
	}
	if bad || (env.ID == nil && env.Method == "") {
		return f.answer(env.ID, codeInvalidRequest, "invalid request: a JSON-RPC 2.0 object with a string method (and an id for a request), or an id with a result or error, is expected")
	}
	if size > sdkLineLimit {
		return f.long(trimmed, env, size)
	}
	if env.ID != nil && env.Method == "" {
		f.w.answered(idKey(*env.ID))
	}
	return f.toSDK(trimmed)
}

func (f *frameFilter) toSDK(line []byte) error {
	_, err := f.sdk.Write(append(line, '\n'))
	return err
}

// spooledAnswer names, for a request of tandem's, the member of its
// answer's result that may be long and that tandem takes from the spool
// (client.go): a file's text, a terminal's output.
func spooledAnswer(method string) string {
	switch method {
	case acpsdk.ClientMethodFsReadTextFile:
		return "content"
	case acpsdk.ClientMethodTerminalOutput:
		return "output"
	}
	return ""
}

// long hands the SDK a message over its limit (and at most frameCap) with
// its large strings spooled: every one of a client's request, the one
// tandem reads of an answer to its own request.
func (f *frameFilter) long(line []byte, env envelope, size int) error {
	if env.ID == nil {
		fmt.Fprintf(f.w.log, "tandem acp: dropped the %s notification of %d bytes: a notification may have %d MiB\n", env.Method, size, (sdkLineLimit+1)>>20)
		return nil
	}
	id := idKey(*env.ID)
	var msg map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&msg); err != nil {
		return f.answer(env.ID, codeInvalidRequest, "invalid request: "+err.Error())
	}
	owner := inOwner(id)
	if env.Method == "" {
		owner = outOwner(id)
		result, _ := msg["result"].(map[string]any)
		field := spooledAnswer(f.w.answered(id))
		s, isString := result[field].(string)
		if field == "" || !isString || len(s) < spoolMin {
			// Nothing waits for it, or its long part is not one tandem reads.
			return f.failAnswer(env.ID, size)
		}
		result[field] = f.w.spool.put(owner, s)
	} else {
		for k, v := range msg {
			msg[k] = spoolStrings(v, func(s string) string { return f.w.spool.put(owner, s) })
		}
	}
	// The id as sent: the answer echoes it, and ends the spooled strings.
	msg["id"] = *env.ID
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		f.w.spool.drop(owner)
		return f.answer(env.ID, codeInternalError, "could not re-encode the message: "+err.Error())
	}
	if b.Len()-1 > sdkLineLimit {
		// Long without long strings: too many members to take apart.
		f.w.spool.drop(owner)
		if env.Method == "" {
			return f.failAnswer(env.ID, size)
		}
		return f.answer(env.ID, codeInvalidRequest, fmt.Sprintf("message of %d bytes is over the %d MiB tandem's ACP connection takes when its strings are set aside (strings of %d KiB and more are): send less",
			size, (sdkLineLimit+1)>>20, spoolMin>>10))
	}
	return f.toSDK(bytes.TrimRight(b.Bytes(), "\n"))
}

// spoolStrings replaces, in a decoded JSON value, every string of at least
// spoolMin bytes by what put returns for it.
func spoolStrings(v any, put func(string) string) any {
	switch v := v.(type) {
	case string:
		if len(v) >= spoolMin {
			return put(v)
		}
	case map[string]any:
		for k, x := range v {
			v[k] = spoolStrings(x, put)
		}
	case []any:
		for i, x := range v {
			v[i] = spoolStrings(x, put)
		}
	}
	return v
}

// failAnswer hands the SDK an error in place of an answer to tandem's
// request that cannot reach it: the request fails, not the connection.
func (f *frameFilter) failAnswer(id *json.RawMessage, size int) error {
	b, err := errorLine(id, codeInternalError, fmt.Sprintf("the client's answer of %d bytes could not be taken: tandem's ACP connection takes messages of up to %d MiB, and of an answer over %d MiB only a file's text or a terminal's output",
		size, frameCap>>20, (sdkLineLimit+1)>>20))
	if err != nil {
		return err
	}
	_, err = f.sdk.Write(b)
	return err
}

// overCap answers a line longer than tandem takes at all.
func (f *frameFilter) overCap(kept []byte, size int) error {
	env := peekEnvelope(kept, false)
	switch {
	case env.ID != nil && env.Method == "":
		f.w.answered(idKey(*env.ID))
		return f.failAnswer(env.ID, size)
	case env.Method != "" && env.ID == nil:
		fmt.Fprintf(f.w.log, "tandem acp: dropped the %s notification of %d bytes: over the %d MiB a message may have\n", env.Method, size, frameCap>>20)
		return nil
	}
	return f.answer(env.ID, codeInvalidRequest, fmt.Sprintf("message of %d bytes is over the %d MiB a message may have on tandem's ACP connection: send less (attach large files as resource links, which tandem reads itself)",
		size, frameCap>>20))
}

// peekEnvelope reads the top-level id and method of a message that may
// be cut short, stopping at the first value it cannot read. headOnly also
// stops at the first member other than jsonrpc, id and method, so a long
// message tandem writes is not scanned: the SDK writes those before
// params, result and error.
func peekEnvelope(b []byte, headOnly bool) envelope {
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
		if headOnly && key != "jsonrpc" && key != "id" && key != "method" {
			return env
		}
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

// answer writes a JSON-RPC error response to the client (id null when id
// is nil).
func (f *frameFilter) answer(id *json.RawMessage, code int, message string) error {
	b, err := errorLine(id, code, message)
	if err != nil {
		return err
	}
	// A client that stopped reading is the SDK's to notice; the filter
	// goes on reading.
	_, _ = f.w.write(b)
	return nil
}
