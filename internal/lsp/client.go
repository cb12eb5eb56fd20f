package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/tandem-agent/tandem/internal/tool"
)

// client is one running server for one root folder.
type client struct {
	srv  Server
	root string
	proc *process
	conn *jsonrpc2.Conn
	caps initializeResult

	mu    sync.Mutex
	docs  map[string]int       // open documents: uri -> version sent
	diags map[string]published // last publish per uri
	wake  chan struct{}        // closed and replaced at each publish
}

type published struct {
	version *int
	items   []Diagnostic
}

// startClient starts srv's program for root and completes the LSP
// handshake within ctx.
func startClient(ctx context.Context, srv Server, argv []string, root string, env []string, starter tool.Starter) (*client, error) {
	proc, err := startProcess(argv, root, env, starter)
	if err != nil {
		return nil, err
	}
	c := &client{srv: srv, root: root, proc: proc, docs: map[string]int{}, diags: map[string]published{}, wake: make(chan struct{})}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(proc, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(c.handle)))
	go func() {
		// The server ended: the connection ends with it.
		<-proc.done
		c.conn.Close()
	}()
	params := initializeParams{ProcessID: os.Getpid(), RootURI: fileURI(root),
		WorkspaceFolders: []workspaceFolder{{URI: fileURI(root), Name: filepath.Base(root)}},
		Capabilities:     json.RawMessage(clientCapabilities), InitializationOptions: srv.InitOptions}
	params.ClientInfo.Name = "tandem"
	if err := c.conn.Call(ctx, "initialize", params, &c.caps); err != nil {
		c.stop()
		return nil, fmt.Errorf("%s did not start (initialize): %w", srv.Name, c.why(err))
	}
	if err := c.conn.Notify(ctx, "initialized", struct{}{}); err != nil {
		c.stop()
		return nil, fmt.Errorf("%s did not start (initialized): %w", srv.Name, c.why(err))
	}
	return c, nil
}

// why prefers the process's end to the connection's error.
func (c *client) why(err error) error {
	select {
	case <-c.proc.done:
		return fmt.Errorf("the server %v", c.proc.err)
	default:
		return err
	}
}

// alive reports whether the server is still running.
func (c *client) alive() bool {
	select {
	case <-c.proc.done:
		return false
	default:
		return true
	}
}

// handle answers the server's requests and reads its notifications.
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
			return nil, nil
		}
		c.mu.Lock()
		c.diags[p.URI] = published{version: p.Version, items: p.Diagnostics}
		close(c.wake)
		c.wake = make(chan struct{})
		c.mu.Unlock()
		return nil, nil
	case "workspace/configuration":
		// One answer per item asked for: the configured settings, or null.
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		out := make([]json.RawMessage, len(p.Items))
		for i := range out {
			out[i] = json.RawMessage("null")
			if c.srv.Settings != nil {
				out[i] = c.srv.Settings
			}
		}
		return out, nil
	case "workspace/workspaceFolders":
		return []workspaceFolder{{URI: fileURI(c.root), Name: filepath.Base(c.root)}}, nil
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return nil, nil
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "tandem does not handle " + req.Method}
}

// sync sends a file's current text: didOpen the first time, didChange
// after, didClose when it is gone. It returns the version sent (0: closed).
func (c *client) sync(ctx context.Context, path, languageID string) (int, error) {
	uri := fileURI(path)
	data, err := readSource(path)
	c.mu.Lock()
	v, open := c.docs[uri]
	if err != nil {
		delete(c.docs, uri)
		delete(c.diags, uri)
		c.mu.Unlock()
		if open && errors.Is(err, os.ErrNotExist) {
			return 0, c.conn.Notify(ctx, "textDocument/didClose", didCloseParams{TextDocument: documentID{URI: uri}})
		}
		return 0, err
	}
	v++
	c.docs[uri] = v
	// What was heard for the old text must never pass for the new one.
	delete(c.diags, uri)
	c.mu.Unlock()
	if !open {
		return v, c.conn.Notify(ctx, "textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{
			URI: uri, LanguageID: languageID, Version: v, Text: string(data)}})
	}
	return v, c.conn.Notify(ctx, "textDocument/didChange", didChangeParams{
		TextDocument: versionedDocument{URI: uri, Version: v}, ContentChanges: []contentChange{{Text: string(data)}}})
}

// diagnostics are the server's diagnostics for version of path: pulled
// where the server answers textDocument/diagnostic, otherwise the first
// publish tagged with that version. A server that tags no versions
// (typescript-language-server) publishes in stages (syntax, then types):
// its answer is the last publish after the change once it has been quiet
// for settle. ok is false when none came within ctx.
func (c *client) diagnostics(ctx context.Context, path string, version int, settle time.Duration) ([]Diagnostic, bool) {
	uri := fileURI(path)
	if offers(c.caps.Capabilities.DiagnosticProvider) {
		var rep documentDiagnosticReport
		if err := c.conn.Call(ctx, "textDocument/diagnostic", documentDiagnosticParams{TextDocument: documentID{URI: uri}}, &rep); err == nil && rep.Kind == "full" {
			return rep.Items, true
		}
		// A server may refuse a pull it advertised (not ready yet): wait
		// for its publish instead.
	}
	var last []Diagnostic
	var quiet <-chan time.Time
	got := false
	for {
		c.mu.Lock()
		p, ok := c.diags[uri]
		wake := c.wake
		cur := c.docs[uri]
		if ok {
			delete(c.diags, uri) // taken: the next publish wakes us anew
		}
		c.mu.Unlock()
		if cur != version {
			return nil, false // a newer change is on its way
		}
		if ok && p.version != nil && *p.version == version {
			return p.items, true
		}
		if ok && p.version == nil {
			last, got = p.items, true
			quiet = time.After(settle)
		}
		select {
		case <-wake:
		case <-quiet:
			return last, true
		case <-c.proc.done:
			return nil, false
		case <-ctx.Done():
			return last, got
		}
	}
}

// stop asks the server to shut down, then ends its process group.
func (c *client) stop() {
	if c.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if c.conn.Call(ctx, "shutdown", nil, nil) == nil {
			_ = c.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		select {
		case <-c.proc.done:
		case <-time.After(500 * time.Millisecond):
		}
	}
	c.proc.kill()
	c.conn.Close()
	<-c.proc.done
	c.proc.Close()
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath is the path of a file: URI ("" for another scheme).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}
