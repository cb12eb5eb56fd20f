package feishu

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	larkws "github.com/larksuite/oapi-sdk-go/v3/ws"
)

// wsClient is the SDK's long-connection client with what Receive needs
// to know of it.
type wsClient struct {
	c *larkws.Client
	// connected is set once it connected: from then on a stopped client
	// cannot start again (the SDK makes it terminal).
	connected atomic.Bool
	tr        *http.Transport // of its endpoint requests
}

// longConnection runs the long connection until ctx ends or Feishu
// refuses it for good.
//
// The SDK's ws client (v3.11) reconnects by itself at the pace Feishu's
// ClientConfig sets (the events Feishu delivers again on the new
// connection are skipped by their stored ids); when the context passed
// to Start ends, it closes its socket, waits for its workers and the
// event handlers still running, and returns. So nothing of it runs on
// once Receive has returned, but for one idle goroutine per client: the
// sweeper of its frame cache, which the SDK stops only when the client is
// garbage collected, and which itself keeps the client reachable. Hence
// one client for as long as it may start again (after a refusal before it
// ever connected), not one per call.
func (p *Platform) longConnection(ctx context.Context) error {
	if p.ws == nil {
		w := &wsClient{tr: http.DefaultTransport.(*http.Transport).Clone()}
		w.c = larkws.NewClient(p.cfg.AppID, p.cfg.AppSecret, larkws.WithEventHandler(p.events), larkws.WithDomain(p.base),
			larkws.WithLogLevel(quiet), larkws.WithLogger(sdkLog{p}), larkws.WithHttpClient(&http.Client{Transport: w.tr, Timeout: 30 * time.Second}),
			larkws.WithOnReady(func() { w.connected.Store(true) }))
		p.ws = w
	}
	w := p.ws
	err := w.c.Start(ctx)
	w.tr.CloseIdleConnections()
	if ctx.Err() != nil || w.connected.Load() {
		p.ws = nil // done for good
	}
	if ctx.Err() != nil {
		return nil
	}
	var refused *larkws.ClientError
	if errors.As(err, &refused) {
		return fmt.Errorf("the Feishu long connection was refused (check app_id and app_secret, and that the app subscribes to events by long connection): %w", err)
	}
	if err == nil {
		err = errors.New("it closed")
	}
	return fmt.Errorf("the Feishu long connection failed: %w", err)
}
