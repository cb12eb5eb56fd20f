package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
)

type client struct {
	base string
	// streamBase, when set, is another replica's address: SSE streams are
	// read there while sessions and prompts go to base (-replicas).
	streamBase string
	http       *http.Client
}

func (c *client) call(method, path string, body any) ([]byte, error) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, buf.String())
	}
	return buf.Bytes(), nil
}

// createSession is POST /api/sessions; it returns the new session's id.
func (c *client) createSession(ws string) (string, error) {
	data, err := c.call("POST", "/api/sessions", map[string]string{"cwd": ws})
	if err != nil {
		return "", err
	}
	var s struct{ ID string }
	if err := json.Unmarshal(data, &s); err != nil || s.ID == "" {
		return "", fmt.Errorf("POST /api/sessions answered %q", data)
	}
	return s.ID, nil
}

// stream opens a session's event stream after seq (Last-Event-ID).
func (c *client) stream(id string, after int64) (io.ReadCloser, error) {
	base := c.base
	if c.streamBase != "" {
		base = c.streamBase
	}
	req, _ := http.NewRequest("GET", base+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Last-Event-ID", fmt.Sprint(after))
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET events of %s: %s", id, resp.Status)
	}
	return resp.Body, nil
}

type result struct {
	id                string
	types             map[int64]event.Type
	events, lost, dup int
	disordered        int  // events whose seq was not above the one before
	resumed           int  // reconnections with Last-Event-ID
	cut               int  // streams the server ended before done (resumed too, as EventSource does)
	done              bool // the stream reached the turn's done event
	err               error
}

// session creates a session, attaches an SSE client, runs one turn and
// checks the stream: seqs 1..n, each once, in order, ending with done.
// After reconnectAfter events (0: never) the client drops its connection
// and resumes from the last seq it got, as a browser's EventSource does.
func (c *client) session(ws string, reconnectAfter int) result {
	id, err := c.createSession(ws)
	if err != nil {
		return result{err: err}
	}
	r := result{id: id}
	tl := newTally()
	body, err := c.stream(id, 0)
	if err != nil {
		return result{err: err}
	}
	defer func() { body.Close() }()
	if _, err := c.call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": "go"}); err != nil {
		return result{err: err}
	}
	var last int64
	sc := newScanner(body)
	for !r.done {
		if !sc.Scan() {
			// The server ended the stream (a client it dropped): resume,
			// as a browser's EventSource does, a few times at most.
			body.Close()
			if r.cut++; r.cut > 5 {
				r.err = fmt.Errorf("session %s: the stream ended before done %d times (%v)", id, r.cut, sc.Err())
				break
			}
			if body, err = c.stream(id, last); err != nil {
				r.err = err
				break
			}
			sc = newScanner(body)
			continue
		}
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type event.Type
			Seq  int64
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			r.err = err
			break
		}
		if ev.Type == event.KeepAlive {
			continue
		}
		tl.add(ev.Seq, ev.Type)
		last = tl.last
		r.done = ev.Type == event.Done
		if !r.done && reconnectAfter > 0 && tl.events == reconnectAfter {
			body.Close()
			if body, err = c.stream(id, last); err != nil {
				r.err = err
				break
			}
			sc = newScanner(body)
			r.resumed++
		}
	}
	r.types, r.events, r.lost, r.dup, r.disordered = tl.types, tl.events, tl.lost(), tl.dup, tl.disordered
	if last == 0 && r.err == nil {
		r.err = fmt.Errorf("session %s: no events", id)
	}
	return r
}

func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return sc
}
