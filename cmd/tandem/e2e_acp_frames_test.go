package main

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// Reads through the client stay on one connection whatever their size: a
// 13 MB file on disk is read from disk (what tandem asks the client for
// fits a message), and a 13 MB unsaved buffer the client sends anyway
// fails that Read with a JSON-RPC error instead of ending the connection.
func TestACPClientReadOverMessageLimit(t *testing.T) {
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": "huge.txt", "offset": 1, "limit": 2})),
		scripted.ToolStep(scripted.CallID("r2", "Read", map[string]any{"file_path": "small.txt", "offset": 1, "limit": 2})),
		scripted.TextStep("Read both."),
	}})
	huge := x.WriteFile("huge.txt", "first line on disk\n"+strings.Repeat("0123456789abcdef\n", 13<<20/17))
	small := x.WriteFile("small.txt", "small on disk\n")
	l := runACPClient(t, x, "SCENARIO=client-big-read", "BUFFER_PATH="+small, "BUFFER_TEXT=buffer line\n", "BUFFER_LINES=1200000")

	if r := l.response(t, "read"); r["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v", r)
	}
	for _, p := range l.Reads {
		if p == huge {
			t.Errorf("tandem asked the client for a 13 MB file: %v", l.Reads)
		}
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if body := string(reqs[1].RawBody); !strings.Contains(body, "first line on disk") {
		t.Errorf("the large file was not read:\n%.2000s", body)
	}
	if body := string(reqs[2].RawBody); !strings.Contains(body, "could not read") || !strings.Contains(body, "10 MiB") {
		t.Errorf("the oversized answer did not fail the Read naming the limit:\n%.2000s", body)
	}
}

// Lines the SDK would skip or die on get JSON-RPC answers: -32700 for a
// line that is not JSON, -32600 for a batch (both with id null), -32600
// with its id for a request over 10 MiB; the connection goes on.
func TestACPAnswersBadLines(t *testing.T) {
	x := newE2E(t, scripted.Script{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := x.Command(ctx, "acp")
	cmd.Stdin = nil
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	defer in.Close()
	go func() {
		for _, l := range []string{
			`{oops`,
			`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}]`,
			`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"pad":"` + strings.Repeat("x", 11<<20) + `"}}`,
			`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}}`,
		} {
			if _, err := in.Write([]byte(l + "\n")); err != nil {
				return
			}
		}
	}()
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	var got []map[string]any
	for len(got) < 4 && sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, m)
	}
	if len(got) < 4 {
		t.Fatalf("answers %v (%v)", got, sc.Err())
	}
	code := func(m map[string]any) any {
		e, _ := m["error"].(map[string]any)
		return e["code"]
	}
	if got[0]["id"] != nil || code(got[0]) != float64(-32700) {
		t.Errorf("not JSON: %v", got[0])
	}
	if got[1]["id"] != nil || code(got[1]) != float64(-32600) {
		t.Errorf("batch: %v", got[1])
	}
	if got[2]["id"] != float64(2) || code(got[2]) != float64(-32600) {
		t.Errorf("oversized request: %v", got[2])
	}
	if got[3]["id"] != float64(3) || got[3]["result"] == nil {
		t.Errorf("the connection did not go on: %v", got[3])
	}
}
