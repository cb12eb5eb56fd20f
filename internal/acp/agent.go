// Package acp makes tandem an Agent Client Protocol agent: an editor (Zed,
// JetBrains, Neovim plugins) starts `tandem acp` and talks JSON-RPC over its
// stdin and stdout. Each ACP session is a stored tandem session, driven
// through the same session manager, permission engine and event stream as
// every other way in; this package only translates.
package acp

import (
	"context"
	"fmt"
	"io"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
)

// Options configure an ACP agent.
type Options struct {
	// OpenApp opens tandem. Each session's permission questions go to
	// the client (session/request_permission): the agent opens them with
	// its asker.
	OpenApp func() (*app.App, error)
	// Version is tandem's version, reported in initialize.
	Version string
	// Log receives diagnostics; stdout belongs to the protocol.
	Log io.Writer
}

// Agent implements the ACP agent side over a tandem App.
type Agent struct {
	app     *app.App
	conn    *acpsdk.AgentSideConnection
	wire    *wire
	version string
	log     io.Writer
	// tools are tandem's built-in tools, for what each says of its calls
	// (kind, title, paths, text changes) in permission questions.
	tools tool.Lookup

	mu       sync.Mutex
	client   acpsdk.ClientCapabilities
	sessions map[string]*liveSession
}

// liveSession is one ACP session open in this process.
type liveSession struct {
	live  *session.Live
	turns *turnState
}

// Serve runs the agent on in/out until the client disconnects or ctx ends,
// then closes every session it opened.
func Serve(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	ag := &Agent{version: opts.Version, log: opts.Log, sessions: map[string]*liveSession{}, tools: tools.Lookup()}
	a, err := opts.OpenApp()
	if err != nil {
		return err
	}
	defer a.Close()
	ag.app = a
	// The SDK and the frame filter answer on one stream, a message at a time.
	ag.wire = newWire(out, opts.Log)
	ag.conn = acpsdk.NewAgentSideConnection(ag, ag.wire, filterFrames(in, ag.wire))
	defer ag.closeAll()
	select {
	case <-ag.conn.Done():
	case <-ctx.Done():
	}
	return nil
}

func (ag *Agent) closeAll() {
	ag.mu.Lock()
	all := ag.sessions
	ag.sessions = map[string]*liveSession{}
	ag.mu.Unlock()
	for _, s := range all {
		s.live.Close()
	}
}

// lookup returns an open session or a protocol error naming the fix.
func (ag *Agent) lookup(id acpsdk.SessionId) (*liveSession, error) {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	s, ok := ag.sessions[string(id)]
	if !ok {
		return nil, acpsdk.NewInvalidParams(map[string]any{
			"error": fmt.Sprintf("session %s is not open in this agent: call session/new, or session/load or session/resume for a stored session", id)})
	}
	return s, nil
}

func (ag *Agent) clientCaps() acpsdk.ClientCapabilities {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.client
}

// spool is where the connection keeps the long strings of the client's
// messages (nil before Serve connects).
func (ag *Agent) spool() *spool {
	if ag.wire == nil {
		return nil
	}
	return ag.wire.spool
}
