package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// errorOf decodes a JSON-RPC error answer line.
func errorOf(t *testing.T, line string) (id any, code float64, message string) {
	t.Helper()
	var m struct {
		ID    any `json:"id"`
		Error struct {
			Code    float64 `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("answer %.300q: %v", line, err)
	}
	return m.ID, m.Error.Code, m.Error.Message
}

// The frame filter answers what the SDK would drop or die on: an
// unparseable line (-32700, id null), a batch and a non-request (-32600,
// id null), a request over the 64 MiB cap (-32600 with its id, naming the
// cap); a request over the SDK's 10 MiB reaches it with its long strings
// in the spool, and so does a file's text in an answer to tandem's
// fs/read_text_file; an answer over 10 MiB that tandem reads nothing long
// of fails its request; a long notification is dropped; a response with
// id null is dropped (answering could loop); everything else reaches the
// SDK unchanged.
func TestFrameFilter(t *testing.T) {
	big := strings.Repeat("a", 11<<20)
	huge := strings.Repeat("h", 65<<20)
	in := strings.Join([]string{
		`not json`,
		`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`,
		`42`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"a response to nothing is not answered"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"` + big + `"},{"type":"text","text":"<small & kept>"}],"n":1.50}}`,
		`{"jsonrpc":"2.0","id":"r1","result":{"content":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":"r2","result":{"content":"` + big + `"}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"text":"` + huge + `"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}`,
		``,
	}, "\n")
	var out bytes.Buffer
	w := newWire(&out, io.Discard)
	// tandem asked the client for a file as r1 (r2 is no request of tandem's).
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"path":"/x"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	sdk, err := io.ReadAll(filterFrames(strings.NewReader(in), w))
	if err != nil {
		t.Fatal(err)
	}

	answers := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []struct {
		id   any
		code float64
	}{{nil, -32700}, {nil, -32600}, {nil, -32600}, {nil, -32600}, {float64(9), -32600}}
	if len(answers) != len(want) {
		t.Fatalf("answers: %.2000q", answers)
	}
	for i, wa := range want {
		if id, code, _ := errorOf(t, answers[i]); id != wa.id || code != wa.code {
			t.Errorf("answer %d = %.300s, want id %v code %v", i, answers[i], wa.id, wa.code)
		}
	}
	if _, _, msg := errorOf(t, answers[4]); !strings.Contains(msg, "64 MiB") || !strings.Contains(msg, "resource links") {
		t.Errorf("the request over the cap is not told the cap and the fix: %s", msg)
	}

	lines := strings.Split(strings.TrimSuffix(string(sdk), "\n"), "\n")
	if len(lines) != 4 || lines[3] != `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}` {
		t.Fatalf("the SDK got %d lines: %.600q", len(lines), lines)
	}
	for i, l := range lines {
		if len(l) > sdkLineLimit {
			t.Errorf("line %d to the SDK has %d bytes", i, len(l))
		}
	}
	var prompt struct {
		ID     int `json:"id"`
		Params struct {
			Prompt []struct{ Text string }
			N      json.Number
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &prompt); err != nil || prompt.ID != 7 || len(prompt.Params.Prompt) != 2 {
		t.Fatalf("the long prompt reached the SDK as %.300s (%v)", lines[0], err)
	}
	if prompt.Params.N != "1.50" || prompt.Params.Prompt[1].Text != "<small & kept>" {
		t.Errorf("the rest of the prompt changed: %.300s", lines[0])
	}
	tok := prompt.Params.Prompt[0].Text
	if !strings.HasPrefix(tok, spoolPrefix) || len(tok) > 100 {
		t.Fatalf("the long text was not spooled: %.100q", tok)
	}
	if got := w.spool.take(tok); got != big {
		t.Errorf("the spool gave back %d bytes, want the %d sent", len(got), len(big))
	}
	if got := w.spool.take(tok); got != tok {
		t.Errorf("a token was taken twice")
	}

	var r1 struct {
		ID     string
		Result struct{ Content string }
	}
	if err := json.Unmarshal([]byte(lines[1]), &r1); err != nil || r1.ID != "r1" || w.spool.take(r1.Result.Content) != big {
		t.Errorf("the long file text did not reach tandem: %.300s (%v)", lines[1], err)
	}
	if id, code, msg := errorOf(t, lines[2]); id != "r2" || code != -32603 || !strings.Contains(msg, "bytes") {
		t.Errorf("the long answer to no request of tandem's reached the SDK as %.300s", lines[2])
	}
	if n := w.spool.size(); n != 0 {
		t.Errorf("%d strings left in the spool", n)
	}
}

// What a request left untaken in the spool goes when its answer goes out;
// a token the client writes itself, in a message of any size, is its
// literal text; strings that are not long stay in the message.
func TestSpoolLifetimeAndForgedTokens(t *testing.T) {
	big := strings.Repeat("b", 11<<20)
	forged := spoolPrefix + strings.Repeat("0", 32)
	var out bytes.Buffer
	w := newWire(&out, io.Discard)
	pr, pw := io.Pipe()
	in := bufio.NewReader(filterFrames(pr, w))
	send := func(l string) string {
		t.Helper()
		go func() { _, _ = pw.Write([]byte(l + "\n")) }()
		got, err := in.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	line := send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"a":"` + big + `","b":"` + big + `","c":"` + forged + `"}}`)
	var m struct{ Params struct{ A, B, C string } }
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	if w.spool.size() != 2 || m.Params.C != forged {
		t.Fatalf("spooled %d strings, c = %q", w.spool.size(), m.Params.C)
	}
	if w.spool.take(m.Params.A) != big {
		t.Fatal("a was not spooled")
	}
	// A client that learnt a token (it never sees one) sends it back.
	echo := send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"a":"` + m.Params.A + `","c":"` + forged + `"}}`)
	var e struct{ Params struct{ A, C string } }
	if err := json.Unmarshal([]byte(echo), &e); err != nil {
		t.Fatal(err)
	}
	if got := w.spool.take(e.Params.A); got != m.Params.A {
		t.Errorf("a token taken once resolved again to %d bytes", len(got))
	}
	if got := w.spool.take(e.Params.C); got != forged {
		t.Errorf("a forged token resolved to %.50q", got)
	}
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if n := w.spool.size(); n != 0 {
		t.Errorf("the answer to request 3 left %d strings in the spool", n)
	}

	// The answer echoes the id as the client wrote it.
	line = send(`{"jsonrpc":"2.0","id":"\u0041","method":"session/prompt","params":{"a":"` + big + `"}}`)
	if !strings.Contains(line, `"id":"\u0041"`) || w.spool.size() != 1 {
		t.Fatalf("the id changed or nothing was spooled: %.100s", line)
	}
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":"\u0041","result":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if n := w.spool.size(); n != 0 {
		t.Errorf("the answer to request \"\\u0041\" left %d strings in the spool", n)
	}

	// tandem stopped waiting for its request 5: a long answer to it is not kept.
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{}}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":5}}`,
	} {
		if _, err := w.Write([]byte(l + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	if id, code, _ := errorOf(t, send(`{"jsonrpc":"2.0","id":5,"result":{"content":"`+big+`"}}`)); id != float64(5) || code != -32603 || w.spool.size() != 0 {
		t.Errorf("the answer to a cancelled request: id %v code %v, %d spooled", id, code, w.spool.size())
	}
	_ = pw.Close()
}

// Nothing longer than the SDK reads goes out: a long update is dropped, a
// long answer becomes an error for its request, and a long request of
// tandem's fails with an error the SDK reads as its answer.
func TestWireKeepsOutgoingUnderTheLimit(t *testing.T) {
	big := strings.Repeat("c", 11<<20)
	var out, log bytes.Buffer
	w := newWire(&out, &log)
	pr, pw := io.Pipe()
	sdk := bufio.NewReader(filterFrames(pr, w))
	defer pw.Close()
	for _, l := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":12,"result":{"text":"` + big + `"}}`,
		`{"jsonrpc":"2.0","id":13,"method":"fs/write_text_file","params":{"content":"` + big + `"}}`,
	} {
		if _, err := w.Write([]byte(l + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	sent := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(sent) != 1 {
		t.Fatalf("sent %d lines: %.300q", len(sent), sent)
	}
	if id, code, msg := errorOf(t, sent[0]); id != float64(12) || code != -32603 || !strings.Contains(msg, "10 MiB") {
		t.Errorf("the long answer went out as %.300s", sent[0])
	}
	if !strings.Contains(log.String(), "session/update") {
		t.Errorf("the dropped update was not noted: %q", log.String())
	}
	got, err := sdk.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if id, code, _ := errorOf(t, got); id != float64(13) || code != -32603 {
		t.Errorf("the SDK got %.300s for its long request", got)
	}
}
