package lsp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// fakeServerName is the program name under which the test binary is a
// stand-in rust-analyzer: rust-analyzer cannot be installed where these
// tests run (no registry serves it), so its detection, configuration and
// the protocol path are tested against this instead (docs/lsp.md says so).
const fakeServerName = "rust-analyzer"

// fakeServer speaks LSP on in/out: full text sync, and for every text it
// is sent a version-tagged publish with an error on each line that has
// "BROKEN" in it.
func fakeServer(in io.Reader, out io.WriteCloser) int {
	done := make(chan struct{})
	handler := jsonrpc2.HandlerWithError(func(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		var doc struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int    `json:"version"`
				Text    string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Text string `json:"text"`
			} `json:"contentChanges"`
		}
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &doc)
		}
		switch req.Method {
		case "initialize":
			return map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}, nil
		case "shutdown":
			return nil, nil
		case "exit":
			close(done)
			return nil, nil
		case "textDocument/didOpen", "textDocument/didChange":
			text := doc.TextDocument.Text
			if n := len(doc.ContentChanges); n > 0 {
				text = doc.ContentChanges[n-1].Text
			}
			diags := []map[string]any{}
			for i, line := range strings.Split(text, "\n") {
				if c := strings.Index(line, "BROKEN"); c >= 0 {
					diags = append(diags, map[string]any{"severity": 1, "source": "fake-rust", "message": "expected item, found `BROKEN`",
						"range": map[string]any{"start": map[string]int{"line": i, "character": c}, "end": map[string]int{"line": i, "character": c + 6}}})
				}
			}
			_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{
				"uri": doc.TextDocument.URI, "version": doc.TextDocument.Version, "diagnostics": diags})
		}
		return nil, nil
	})
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(stdio{in, out}, jsonrpc2.VSCodeObjectCodec{}), handler)
	select {
	case <-done:
	case <-conn.DisconnectNotify():
	}
	return 0
}

type stdio struct {
	io.Reader
	io.WriteCloser
}

// A .rs file in a Cargo project is sent to rust-analyzer (found by its
// program name on PATH); an edit that breaks it gets the server's error, a
// fix clears it. Run against the stand-in above, not the real server.
func TestRustAnalyzerDetectedStandIn(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, fakeServerName)); err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	s.WaitMS, s.StartMS = 60000, 120000
	h := newHarness(t, s, map[string]string{
		"Cargo.toml":  "[package]\nname = \"m\"\nversion = \"0.1.0\"\n",
		"src/main.rs": "fn main() {\n    let x = 1;\n}\n",
	})
	// PATH is the stand-in's folder alone: a rustup proxy named
	// rust-analyzer on the machine's PATH (without the component) must not
	// answer instead.
	h.m.opts.Env = append(os.Environ(), "PATH="+bin)
	h.read("src/main.rs")
	got := h.edit("src/main.rs", "let x = 1;", "let x = 1; BROKEN")
	mustHave(t, got, "<diagnostics>", "src/main.rs:2:16", "expected item, found `BROKEN`")
	got = h.edit("src/main.rs", "let x = 1; BROKEN", "let x = 2;")
	mustNotHave(t, got, "<diagnostics>")
}
