package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// wire is tandem's side of one ACP connection: the stream both the SDK and
// the frame filter write to (a whole message a Write), the spool of the
// large strings the filter took out of the client's messages, and what
// the filter needs to know about tandem's own requests to read their
// answers. It watches what goes out: an answer to a client request ends
// that request's spooled strings; a request of tandem's is remembered
// until its answer comes; a $/cancel_request forgets it.
//
// Nothing longer than the SDK's own read limit goes out, since a client
// on the same SDK would end the connection on it: an update that long is
// dropped (with a note on stderr), an answer becomes an error naming the
// size, and a request of tandem's fails with such an error as its answer.
// What tandem sends is kept under it where it can be (update.go splits
// message text, client.go writes a large file locally).
type wire struct {
	mu  sync.Mutex // one message at a time on out
	out io.Writer
	log io.Writer

	spool *spool

	// sdk is the SDK's input, where an error answer to a request of
	// tandem's that could not be sent is given (set by filterFrames).
	sdk *io.PipeWriter

	askMu sync.Mutex
	asked map[string]string // tandem's requests waited for: id → method
}

func newWire(out, log io.Writer) *wire {
	return &wire{out: out, log: log, spool: newSpool(), asked: map[string]string{}}
}

// Write takes one whole message from the SDK.
func (w *wire) Write(p []byte) (int, error) {
	head := peekEnvelope(p, true)
	id := ""
	if head.ID != nil {
		id = idKey(*head.ID)
	}
	switch {
	case head.ID != nil && head.Method == "":
		// An answer to the client: what its request left in the spool goes.
		w.spool.drop(inOwner(id))
	case head.ID != nil:
		w.askMu.Lock()
		w.asked[id] = head.Method
		w.askMu.Unlock()
	case head.Method == "$/cancel_request":
		var c struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal(p, &c) == nil && len(c.Params.RequestID) > 0 {
			// tandem stopped waiting: the SDK drops the answer, and
			// what of it is spooled goes.
			rid := idKey(c.Params.RequestID)
			w.askMu.Lock()
			delete(w.asked, rid)
			w.askMu.Unlock()
			w.spool.drop(outOwner(rid))
		}
	}
	if n := len(bytes.TrimRight(p, "\n")); n > sdkLineLimit {
		return len(p), w.tooLong(head, n)
	}
	return w.write(p)
}

func (w *wire) write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

// tooLong stands in for a message of n bytes that may not go out.
func (w *wire) tooLong(head envelope, n int) error {
	msg := fmt.Sprintf("tandem's message of %d bytes is over the %d MiB an ACP message may have (the ACP Go SDK's limit); it was not sent", n, (sdkLineLimit+1)>>20)
	switch {
	case head.ID != nil && head.Method == "":
		b, err := errorLine(head.ID, codeInternalError, msg)
		if err != nil {
			return err
		}
		_, err = w.write(b)
		return err
	case head.ID != nil:
		// tandem's own request: it fails with this error as its answer.
		w.askMu.Lock()
		delete(w.asked, idKey(*head.ID))
		w.askMu.Unlock()
		b, err := errorLine(head.ID, codeInternalError, msg)
		if err != nil {
			return err
		}
		if w.sdk != nil {
			go func() { _, _ = w.sdk.Write(b) }() // the SDK reads it once this Write returns
		}
		return nil
	}
	fmt.Fprintf(w.log, "tandem acp: dropped the %s notification: %s\n", head.Method, msg)
	return nil
}

// answered reports the method of tandem's request an answer is for: ""
// if tandem asked nothing by that id or stopped waiting for it. Either
// way the request is no longer waited for.
func (w *wire) answered(id string) string {
	w.askMu.Lock()
	defer w.askMu.Unlock()
	method := w.asked[id]
	delete(w.asked, id)
	return method
}

// errorLine is a JSON-RPC error response line (id null when id is nil).
func errorLine(id *json.RawMessage, code int, message string) ([]byte, error) {
	var rid any
	if id != nil {
		rid = id
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rid, "error": map[string]any{"code": code, "message": message}})
	return append(b, '\n'), err
}

// idKey is the form of a request id both directions compare: compact JSON.
func idKey(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// The owners of spooled strings: the client's request that carried them,
// or tandem's request whose answer did.
func inOwner(id string) string  { return "in:" + id }
func outOwner(id string) string { return "out:" + id }
