package cliproto

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// control is tandem's side of the control protocol: answers to the host's
// requests, and requests of its own (can_use_tool, hook_callback) that
// wait for the host's answer.
type control struct {
	w *writer

	mu      sync.Mutex
	pending map[string]chan controlAnswer
	seq     int
	closed  bool
}

type controlAnswer struct {
	response json.RawMessage
	err      error
}

// errHostGone is returned to requests still waiting when stdin closes.
var errHostGone = errors.New("the SDK host closed the connection")

func newControl(w *writer) *control {
	return &control{w: w, pending: map[string]chan controlAnswer{}}
}

// request sends a control_request and waits for its control_response.
func (c *control) request(ctx context.Context, subtype string, fields map[string]any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errHostGone
	}
	c.seq++
	id := fmt.Sprintf("tandem_%d_%s", c.seq, newUUID()[:8])
	ch := make(chan controlAnswer, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	req := map[string]any{"subtype": subtype}
	for k, v := range fields {
		req[k] = v
	}
	c.w.line(map[string]any{"type": "control_request", "request_id": id, "request": req})
	select {
	case a := <-ch:
		return a.response, a.err
	case <-ctx.Done():
		c.w.line(map[string]any{"type": "control_cancel_request", "request_id": id})
		return nil, ctx.Err()
	}
}

// deliver routes a control_response line to the request waiting for it.
func (c *control) deliver(raw json.RawMessage) error {
	var env struct {
		Response struct {
			Subtype   string          `json:"subtype"`
			RequestID string          `json:"request_id"`
			Response  json.RawMessage `json:"response"`
			Error     string          `json:"error"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("control_response: %w", err)
	}
	r := env.Response
	c.mu.Lock()
	ch, ok := c.pending[r.RequestID]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("control_response for %q, which tandem did not ask (or already gave up on)", r.RequestID)
	}
	a := controlAnswer{response: r.Response}
	if r.Subtype == "error" {
		a.err = fmt.Errorf("the SDK host answered with an error: %s", cmp.Or(r.Error, "no message"))
	}
	ch <- a
	return nil
}

// close fails every waiting request (stdin ended).
func (c *control) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, ch := range c.pending {
		ch <- controlAnswer{err: errHostGone}
		delete(c.pending, id)
	}
}

func (c *control) reply(id string, response any) {
	if response == nil {
		response = map[string]any{}
	}
	c.w.line(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": response}})
}

func (c *control) fail(id, msg, code string) {
	r := map[string]any{"subtype": "error", "request_id": id, "error": msg}
	if code != "" {
		r["error_code"] = code
	}
	c.w.line(map[string]any{"type": "control_response", "response": r})
}
