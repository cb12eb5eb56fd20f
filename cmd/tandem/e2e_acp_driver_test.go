package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// acpDriver drives `tandem acp` with raw JSON-RPC lines, for messages of
// any size and a look at every line tandem writes.
type acpDriver struct {
	t      *testing.T
	in     io.WriteCloser
	inMu   sync.Mutex // a whole line at a time
	msgs   chan acpMsg
	next   int
	cancel context.CancelFunc
	done   chan struct{}

	// Updates are the session/update params seen; MaxLine the longest
	// line tandem wrote.
	Updates []map[string]any
	MaxLine int
	// Serve answers tandem's requests (fs/read_text_file, ...).
	Serve func(method string, params json.RawMessage) any
}

type acpMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *acpRPCError    `json:"error"`
	size   int
}

type acpRPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func startACP(t *testing.T, x *e2e, args ...string) *acpDriver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	cmd, in, out, stderr := x.startPiped(ctx, append([]string{"acp"}, args...)...)
	d := &acpDriver{t: t, in: in, msgs: make(chan acpMsg, 4096), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(d.msgs)
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(strings.TrimSpace(string(line))) > 0 {
				var m acpMsg
				if jerr := json.Unmarshal(line, &m); jerr != nil {
					t.Errorf("tandem wrote a line that is not JSON: %.200q", line)
				}
				m.size = len(line) - 1
				d.msgs <- m
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
		cancel()
		if t.Failed() {
			t.Logf("tandem acp stderr:\n%.4000s", stderr.String())
		}
	})
	return d
}

// send writes one line without waiting (tandem reads while it writes).
func (d *acpDriver) send(line []byte) {
	go func() {
		d.inMu.Lock()
		defer d.inMu.Unlock()
		_, _ = d.in.Write(append(line, '\n'))
	}()
}

// call sends a request and returns its answer, answering tandem's own
// requests and collecting updates meanwhile.
func (d *acpDriver) call(method string, params any) (json.RawMessage, *acpRPCError) {
	d.t.Helper()
	d.next++
	id := d.next
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		d.t.Fatal(err)
	}
	d.send(b)
	return d.await(id)
}

func (d *acpDriver) await(id int) (json.RawMessage, *acpRPCError) {
	d.t.Helper()
	deadline := time.After(180 * time.Second)
	for {
		var m acpMsg
		var ok bool
		select {
		case m, ok = <-d.msgs:
			if !ok {
				d.t.Fatalf("tandem acp ended before answering request %d", id)
			}
		case <-deadline:
			d.t.Fatalf("no answer to request %d", id)
		}
		d.MaxLine = max(d.MaxLine, m.size)
		switch {
		case m.Method == "session/update":
			var p struct {
				Update map[string]any `json:"update"`
			}
			_ = json.Unmarshal(m.Params, &p)
			d.Updates = append(d.Updates, p.Update)
		case m.Method != "" && len(m.ID) > 0:
			var result any = map[string]any{}
			if d.Serve != nil {
				result = d.Serve(m.Method, m.Params)
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
			d.send(b)
		case m.Method == "" && string(m.ID) == fmt.Sprint(id):
			return m.Result, m.Error
		}
	}
}

// mustCall is call for a request that has to succeed.
func (d *acpDriver) mustCall(method string, params any) map[string]any {
	d.t.Helper()
	res, rerr := d.call(method, params)
	if rerr != nil {
		d.t.Fatalf("%s: %d %s", method, rerr.Code, rerr.Message)
	}
	var m map[string]any
	if err := json.Unmarshal(res, &m); err != nil {
		d.t.Fatalf("%s answered %.300s", method, res)
	}
	return m
}

// newSession initializes (once) and opens a session in x.Work.
func (d *acpDriver) newSession(x *e2e) string {
	d.t.Helper()
	if d.next == 0 {
		d.mustCall("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	}
	sid, _ := d.mustCall("session/new", map[string]any{"cwd": x.Work, "mcpServers": []any{}})["sessionId"].(string)
	if sid == "" {
		d.t.Fatal("session/new gave no sessionId")
	}
	return sid
}

// texts joins the text of the updates of one kind.
func (d *acpDriver) texts(kind string) string {
	var b strings.Builder
	for _, u := range d.Updates {
		if u["sessionUpdate"] == kind {
			c, _ := u["content"].(map[string]any)
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// userText is the text of the last user message of a model request.
func userText(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("model request: %v %.300s", err, body)
	}
	last := req.Messages[len(req.Messages)-1]
	var s string
	if json.Unmarshal(last.Content, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text string }
	_ = json.Unmarshal(last.Content, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

func sha(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }

// bigText is n bytes or more of distinct lines with characters JSON
// escapes and multi-byte ones, ending in a marker.
func bigText(seed string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s %07d: \"quoted\" \\ back <tag> & é ✓ \t%x\n", seed, i, i*7919)
	}
	b.WriteString(seed + " END")
	return b.String()
}
