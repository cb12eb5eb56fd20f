package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// The frame filter answers what the SDK would drop or die on: an
// unparseable line (-32700, id null), a batch and a non-request (-32600,
// id null), a request over the SDK's 10 MiB (-32600 with its id), and
// turns an answer over the limit into an error for the request it
// answers; a response with id null is dropped (answering could loop);
// everything else reaches the SDK unchanged.
func TestFrameFilter(t *testing.T) {
	big := strings.Repeat("a", 11<<20)
	in := strings.Join([]string{
		`not json`,
		`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`,
		`42`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"a response to nothing is not answered"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":"r1","result":{"content":"` + big + `"}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}`,
		``,
	}, "\n")
	var out bytes.Buffer
	w := &lockedWriter{w: &out}
	sdk, err := io.ReadAll(filterFrames(strings.NewReader(in), w, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		got = append(got, m)
	}
	want := []struct {
		id   any
		code float64
	}{{nil, -32700}, {nil, -32600}, {nil, -32600}, {nil, -32600}, {float64(7), -32600}}
	if len(got) != len(want) {
		t.Fatalf("answers: %v", got)
	}
	for i, w := range want {
		e, _ := got[i]["error"].(map[string]any)
		if got[i]["jsonrpc"] != "2.0" || got[i]["id"] != w.id || e == nil || e["code"] != w.code {
			t.Errorf("answer %d = %v, want id %v code %v", i, got[i], w.id, w.code)
		}
	}
	if msg := got[4]["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "10 MiB") {
		t.Errorf("the oversized request's answer does not name the limit: %s", msg)
	}
	lines := strings.Split(strings.TrimSuffix(string(sdk), "\n"), "\n")
	if len(lines) != 2 || lines[1] != `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}` {
		t.Fatalf("the SDK got %d lines: %.300q", len(lines), lines)
	}
	var resp struct {
		ID    string `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &resp); err != nil || resp.ID != "r1" || resp.Error.Code != -32603 || !strings.Contains(resp.Error.Message, "bytes") {
		t.Errorf("the oversized answer reached the SDK as %.300s (%v)", lines[0], err)
	}
}
