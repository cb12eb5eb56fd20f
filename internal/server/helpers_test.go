package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/turnqueue"
)

const testToken = "test-token-0123456789abcdef"

type env struct {
	t     *testing.T
	srv   *server.Server
	ts    *httptest.Server
	stack *servertest.Stack
	ws    string // a registered workspace folder

	dir  string // the data folder, kept across restart
	cfg  servertest.Config
	opts server.Options
	// durable runs turns on a turn queue (turnqueue) in the data folder,
	// as `tandem serve` does; turns its engine.
	durable bool
	turns   *turnqueue.Engine
	// pg, when set, is a private PostgreSQL's URL the env stores in and
	// runs its turns on, as one of several replicas (replicas_pg_test.go).
	pg string
}

type envOpt func(*server.Options, *servertest.Config)

func newEnv(t *testing.T, script scripted.Script, opts ...envOpt) *env {
	t.Helper()
	return newEnvWith(t, false, script, opts...)
}

// newDurableEnv is newEnv with turns run as durable workflows on a SQLite
// turn queue, as the embedded `tandem serve` runs them.
func newDurableEnv(t *testing.T, script scripted.Script, opts ...envOpt) *env {
	t.Helper()
	return newEnvWith(t, true, script, opts...)
}

func newEnvWith(t *testing.T, durable bool, script scripted.Script, opts ...envOpt) *env {
	t.Helper()
	dir := t.TempDir()
	cfg := servertest.Config{Script: script}
	o := server.Options{Token: testToken, DataDir: dir, KeepAlive: time.Hour, DefaultModel: servertest.Model}
	for _, f := range opts {
		f(&o, &cfg)
	}
	e := &env{t: t, dir: dir, cfg: cfg, opts: o, durable: durable}
	e.start(nil)
	t.Cleanup(e.stop)
	ws := filepath.Join(dir, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	e.ws = ws
	e.mustDo("POST", "/api/workspaces", map[string]string{"path": ws}, 201, nil)
	return e
}

// start builds the application and server over e.dir and serves it, on
// ln when given (a restart keeps the address, so a page stays logged in).
func (e *env) start(ln net.Listener) {
	e.t.Helper()
	stack, err := servertest.New(e.dir, e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	o := e.opts
	// As `tandem serve` wires them.
	o.Manager, o.Checkpoints, o.Extensions, o.FlagRules = stack.Manager, stack.Checkpoints, stack.App, stack.FlagRules
	if _, ok := o.EventLog.(stackLog); ok { // withEventLog: the stack's own store
		o.EventLog = stack.Manager.Store()
	}
	e.turns = nil
	if e.durable {
		o.ReplicaID = server.NewReplicaID()
		sys, schema := "sqlite:"+filepath.Join(e.dir, "tandem-turns.db"), ""
		if e.pg != "" {
			sys, schema = e.pg, pgTurnsSchema(e.pg)
			o.EventLog, o.Replicas = stack.Manager.Store(), stack.App.Store
		}
		eng, err := turnqueue.Open(context.Background(), turnqueue.Config{Replica: o.ReplicaID,
			DatabaseURL: sys, Schema: schema,
			Messages: func(ctx context.Context, id string) (int, error) {
				msgs, err := stack.Manager.Messages(ctx, id)
				return len(msgs), err
			}})
		if err != nil {
			stack.Close()
			e.t.Fatal(err)
		}
		o.Turns, e.turns = eng, eng
	}
	srv, err := server.New(o)
	if err != nil {
		stack.Close()
		e.t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Config.ConnContext = server.ConnContext // as Serve sets it
	if ln != nil {
		ts.Listener.Close()
		ts.Listener = ln
	}
	ts.Start()
	e.srv, e.ts, e.stack = srv, ts, stack
}

func (e *env) stop() {
	if e.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e.srv.Shutdown(ctx)
	if e.turns != nil {
		_ = e.turns.Close(2 * time.Second)
	}
	e.ts.CloseClientConnections()
	e.ts.Close()
	e.stack.Close()
	e.srv = nil
}

// restart stops the server and the application and starts new ones over
// the same database, listening on the same address, as a restarted
// `tandem serve` would.
func (e *env) restart() {
	e.t.Helper()
	addr := e.ts.Listener.Addr().String()
	e.stop()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		e.t.Fatalf("listen again on %s: %v", addr, err)
	}
	e.start(ln)
}

// do sends an authenticated JSON request and returns status and body.
func (e *env) do(method, path string, body any) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.ts.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func (e *env) mustDo(method, path string, body any, want int, out any) {
	e.t.Helper()
	code, data := e.do(method, path, body)
	if code != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			e.t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
}

type sessionResp struct {
	ID       string            `json:"id"`
	Mode     string            `json:"mode"`
	Model    string            `json:"model"`
	Runtime  string            `json:"runtime"`
	Status   string            `json:"status"`
	LastSeq  int64             `json:"last_seq"`
	Messages []json.RawMessage `json:"messages"`
	Usage    message.Usage     `json:"usage"`
	Cost     *float64          `json:"total_cost_usd"`
}

func (e *env) newSession() string {
	e.t.Helper()
	var s sessionResp
	e.mustDo("POST", "/api/sessions", map[string]string{"cwd": e.ws}, 201, &s)
	return s.ID
}

func (e *env) send(id, text string) map[string]any {
	e.t.Helper()
	var out map[string]any
	e.mustDo("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": text}, 202, &out)
	return out
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	ID    string
	Event event.Event
}

// stream opens an SSE stream with the test token; events arrive on the
// channel, which closes when the stream ends. cancel ends it from our side.
func (e *env) stream(id, lastEventID string) (<-chan sseEvent, context.CancelFunc) {
	e.t.Helper()
	return e.streamWith(testToken, id, lastEventID)
}

// streamAs opens a session's event stream with tok, as another user.
func (e *env) streamAs(tok, id string) (<-chan sseEvent, context.CancelFunc) {
	e.t.Helper()
	return e.streamWith(tok, id, "")
}

// streamWith opens a session's event stream with tok from after
// lastEventID ("" from the start).
func (e *env) streamWith(tok, id, lastEventID string) (<-chan sseEvent, context.CancelFunc) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.ts.URL+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		cancel()
		e.t.Fatalf("events: status %d", resp.StatusCode)
	}
	ch := make(chan sseEvent, 10000)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		readSSE(resp.Body, ch)
	}()
	return ch, cancel
}

func readSSE(r io.Reader, ch chan<- sseEvent) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur sseEvent
	var data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != "" {
				json.Unmarshal([]byte(data), &cur.Event)
				ch <- cur
			}
			cur, data = sseEvent{}, ""
		case strings.HasPrefix(line, "id: "):
			cur.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		}
	}
}

// until collects events until one satisfies stop (included) or times out.
func until(t *testing.T, ch <-chan sseEvent, stop func(event.Event) bool) []sseEvent {
	t.Helper()
	var got []sseEvent
	deadline := time.After(30 * time.Second) // generous: CI machines are loaded
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended after %d events, before the awaited one", len(got))
			}
			got = append(got, ev)
			if stop(ev.Event) {
				return got
			}
		case <-deadline:
			t.Fatalf("timed out after %d events", len(got))
		}
	}
}

func isType(ty event.Type) func(event.Event) bool {
	return func(e event.Event) bool { return e.Type == ty }
}

// contiguous fails unless the events' seqs go up by one from first.
func contiguous(t *testing.T, evs []sseEvent, first int64) {
	t.Helper()
	want := first
	for _, ev := range evs {
		if ev.Event.Type == event.KeepAlive {
			continue
		}
		if ev.Event.Seq != want {
			t.Fatalf("seq %d (%s), want %d", ev.Event.Seq, ev.Event.Type, want)
		}
		if ev.ID != "" && ev.ID != itoa(want) {
			t.Fatalf("id %q for seq %d", ev.ID, want)
		}
		want++
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func errCode(t *testing.T, data []byte) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(data, &e); err != nil || e.Error.Code == "" {
		t.Fatalf("not a JSON error: %s", data)
	}
	return e.Error.Code
}

// slowText is a step that streams for a while (about 40 chunks).
func slowText(ms int) scripted.Step {
	return scripted.Step{Text: strings.Repeat("streaming words ", 30), Fault: &scripted.Fault{DelayBetweenChunksMS: ms, Always: true}}
}
