// Package mcpws carries MCP over WebSocket (Claude Code's "ws" server
// type): one JSON-RPC message per text frame, subprotocol "mcp". It plugs
// into the go-sdk's Transport and Connection interfaces.
package mcpws

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subprotocol is the WebSocket subprotocol MCP servers expect.
const Subprotocol = "mcp"

// readLimit matches the SDK's stdio frame limit; websocket's default (32 KiB)
// is far too small for tool results.
const readLimit = 16 << 20

// ClientTransport dials a WebSocket MCP server.
type ClientTransport struct {
	URL        string
	Header     http.Header
	HTTPClient *http.Client
}

// Connect dials the server.
func (t *ClientTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, resp, err := websocket.Dial(ctx, t.URL, &websocket.DialOptions{
		HTTPClient:   t.HTTPClient,
		HTTPHeader:   t.Header,
		Subprotocols: []string{Subprotocol},
	})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("websocket dial %s: HTTP %s: %w", t.URL, resp.Status, err)
		}
		return nil, fmt.Errorf("websocket dial %s: %w", t.URL, err)
	}
	return NewConn(c), nil
}

// Conn is an sdk.Connection over one WebSocket.
type Conn struct {
	ws        *websocket.Conn
	ctx       context.Context // cancelled by Close, so Close unblocks Read
	cancel    context.CancelFunc
	closeOnce sync.Once
	closeErr  error
}

// NewConn wraps an open WebSocket.
func NewConn(ws *websocket.Conn) *Conn {
	ws.SetReadLimit(readLimit)
	ctx, cancel := context.WithCancel(context.Background())
	return &Conn{ws: ws, ctx: ctx, cancel: cancel}
}

// Read reads the next message.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	ctx, stop := mergeCancel(ctx, c.ctx)
	defer stop()
	typ, data, err := c.ws.Read(ctx)
	if err != nil {
		if c.ctx.Err() != nil || websocket.CloseStatus(err) != -1 {
			return nil, sdk.ErrConnectionClosed
		}
		return nil, fmt.Errorf("websocket read: %w", err)
	}
	if typ != websocket.MessageText {
		return nil, errors.New("websocket read: binary frame where a JSON-RPC text frame was expected")
	}
	return jsonrpc.DecodeMessage(data)
}

// Write sends one message as a text frame.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("websocket write: %w", err)
	}
	ctx, stop := mergeCancel(ctx, c.ctx)
	defer stop()
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		if c.ctx.Err() != nil {
			return sdk.ErrConnectionClosed
		}
		return fmt.Errorf("websocket write: %w", err)
	}
	return nil
}

// Close closes the socket; safe to call more than once.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.cancel()
		err := c.ws.Close(websocket.StatusNormalClosure, "")
		if err != nil && websocket.CloseStatus(err) == -1 {
			c.closeErr = err
		}
	})
	return c.closeErr
}

// SessionID is empty: a WebSocket is its own session.
func (c *Conn) SessionID() string { return "" }

// mergeCancel returns a context cancelled when either a or b is.
func mergeCancel(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

// serverTransport hands an accepted socket to sdk.Server.Connect.
type serverTransport struct{ conn *Conn }

func (t serverTransport) Connect(context.Context) (sdk.Connection, error) { return t.conn, nil }

// Handler serves MCP over WebSocket: each connection gets the server that
// getServer returns, until the socket closes.
func Handler(getServer func(*http.Request) *sdk.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}})
		if err != nil {
			return // Accept already wrote the HTTP error
		}
		conn := NewConn(ws)
		ss, err := getServer(r).Connect(r.Context(), serverTransport{conn}, nil)
		if err != nil {
			_ = conn.Close()
			return
		}
		_ = ss.Wait()
	})
}
