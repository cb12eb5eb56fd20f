package main

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// Reads through the client reach the model whole whatever their answer's
// size up to the 64 MiB cap: a 13 MB file on disk is asked of the client,
// and a 14 MB unsaved buffer (both answers over the ACP Go SDK's 10 MiB)
// is read to its last line.
func TestACPClientReadOverMessageLimit(t *testing.T) {
	t.Parallel()
	diskLines := 13 << 20 / 17
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": "huge.txt", "offset": diskLines + 2, "limit": 1})),
		scripted.ToolStep(scripted.CallID("r2", "Read", map[string]any{"file_path": "small.txt", "offset": 1199999, "limit": 5})),
		scripted.TextStep("Read both."),
	}})
	huge := x.WriteFile("huge.txt", "first line on disk\n"+strings.Repeat("0123456789abcdef\n", diskLines)+"last line on disk\n")
	small := x.WriteFile("small.txt", "small on disk\n")
	l := runACPClient(t, x, "SCENARIO=client-big-read", "BUFFER_PATH="+small, "BUFFER_TEXT=buffer line\n", "BUFFER_LINES=1200000")

	if r := l.response(t, "read"); r["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v", r)
	}
	if !slices.Contains(l.Reads, huge) || !slices.Contains(l.Reads, small) {
		t.Errorf("tandem did not ask the client for both files: %v", l.Reads)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if body := string(reqs[1].RawBody); !strings.Contains(body, "last line on disk") || strings.Contains(body, "could not read") {
		t.Errorf("the large file's last line did not arrive:\n%.2000s", body)
	}
	if body := string(reqs[2].RawBody); !strings.Contains(body, "1200000") || !strings.Contains(body, "buffer line") || strings.Contains(body, "could not read") {
		t.Errorf("the large buffer's last line did not arrive:\n%.2000s", body)
	}
}

// Lines the SDK would skip or die on get JSON-RPC answers: -32700 for a
// line that is not JSON, -32600 for a batch (both with id null), -32600
// with its id for a request over the 64 MiB cap; the connection goes on.
func TestACPAnswersBadLines(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, in, out, _ := x.startPiped(ctx, "acp")
	defer func() { _ = cmd.Wait() }()
	defer in.Close()
	go func() {
		for _, l := range []string{
			`{oops`,
			`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}]`,
			`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"pad":"` + strings.Repeat("x", 65<<20) + `"}}`,
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
	e2, _ := got[2]["error"].(map[string]any)
	if msg, _ := e2["message"].(string); got[2]["id"] != float64(2) || code(got[2]) != float64(-32600) || !strings.Contains(msg, "64 MiB") {
		t.Errorf("oversized request: %v", got[2])
	}
	if got[3]["id"] != float64(3) || got[3]["result"] == nil {
		t.Errorf("the connection did not go on: %v", got[3])
	}
}

// An edit whose new text would not fit one message to a client on the ACP
// Go SDK (fs/write_text_file of a 13 MB file) is written on disk instead,
// where the editor sees it; a small one still goes through the client.
func TestACPClientWriteOverMessageLimit(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": "huge.txt", "offset": 1, "limit": 1})),
		scripted.ToolStep(scripted.CallID("e1", "Edit", map[string]any{"file_path": "huge.txt", "old_string": "first line on disk", "new_string": "FIRST LINE EDITED"})),
		scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "new.txt", "content": "small and new\n"})),
		scripted.TextStep("Edited."),
	}})
	huge := x.WriteFile("huge.txt", "first line on disk\n"+strings.Repeat("0123456789abcdef\n", 13<<20/17))
	small := filepath.Join(x.Work, "new.txt")
	l := runACPClient(t, x, "SCENARIO=client-big-read")
	if r := l.response(t, "read"); r["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v", r)
	}
	if got := x.ReadFile("huge.txt"); !strings.HasPrefix(got, "FIRST LINE EDITED\n0123456789abcdef\n") || len(got) != len("FIRST LINE EDITED\n")+13<<20/17*17 {
		t.Errorf("huge.txt was not edited on disk: %d bytes, %.60q", len(got), got)
	}
	for _, u := range l.updates("tool_call_update") {
		if u["toolCallId"] == "e1" && u["status"] != "completed" {
			t.Errorf("the edit: %v", u)
		}
	}
	var wrote []string
	for _, w := range l.Writes {
		wrote = append(wrote, w.Path)
	}
	if slices.Contains(wrote, huge) || !slices.Contains(wrote, small) {
		t.Errorf("fs/write_text_file calls: %v, want only %s", wrote, small)
	}
}
