package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TypeSDK is a server that lives inside the program driving tandem (a
// Claude Agent SDK host's in-process server): its messages travel through
// that program, by a ProxyFunc.
const TypeSDK = "sdk"

// ProxyFunc carries one JSON-RPC message to the named in-process server
// and returns its answer (nothing, for a notification).
type ProxyFunc func(ctx context.Context, server string, msg json.RawMessage) (json.RawMessage, error)

// proxyTransport is the SDK transport over a ProxyFunc.
type proxyTransport struct {
	server string
	send   ProxyFunc
}

func (t proxyTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	if t.send == nil {
		return nil, fmt.Errorf("server %s runs inside the program that started tandem, and that program offers no way to reach it", t.server)
	}
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &proxyConn{t: t, ctx: cctx, cancel: cancel, in: make(chan jsonrpc.Message, 16)}, nil
}

// proxyConn turns each request into a round trip through the host; the
// answers are queued for Read in the order they come back.
type proxyConn struct {
	t      proxyTransport
	ctx    context.Context
	cancel context.CancelFunc
	in     chan jsonrpc.Message
	once   sync.Once
}

func (c *proxyConn) SessionID() string { return "" }

func (c *proxyConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.ctx.Done():
		return nil, fmt.Errorf("connection to %s closed", c.t.server)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *proxyConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	req, isReq := msg.(*jsonrpc.Request)
	go func() {
		resp, err := c.t.send(c.ctx, c.t.server, data)
		if !isReq || !req.ID.IsValid() {
			return // a notification or a response: nothing comes back
		}
		var answer jsonrpc.Message
		if err == nil {
			answer, err = jsonrpc.DecodeMessage(resp)
		}
		if err != nil {
			answer = &jsonrpc.Response{ID: req.ID, Error: fmt.Errorf("in-process server %s: %w", c.t.server, err)}
		}
		select {
		case c.in <- answer:
		case <-c.ctx.Done():
		}
	}()
	return nil
}

func (c *proxyConn) Close() error {
	c.once.Do(c.cancel)
	return nil
}
