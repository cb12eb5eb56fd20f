// Command mcp-conformance-client is the client the official MCP
// conformance suite (npm @modelcontextprotocol/conformance) launches once
// per client scenario: `mcp-conformance-client SERVER_URL` with the
// scenario in MCP_CONFORMANCE_SCENARIO and its settings in
// MCP_CONFORMANCE_CONTEXT. It drives tandem's own MCP client
// (internal/mcp: the connection manager, the OAuth sign-in, the token
// store, elicitation) the way a session and `tandem mcp login` do, with
// the browser step replaced by following the authorization server's
// redirect. It is a test helper, not part of tandem.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/tool"
)

const name = "conf"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mcp-conformance-client SERVER_URL (scenario in MCP_CONFORMANCE_SCENARIO)")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-conformance-client:", err)
		os.Exit(1)
	}
}

func run(serverURL, scenario, rawCtx string) error {
	var sc map[string]any
	if rawCtx != "" {
		_ = json.Unmarshal([]byte(rawCtx), &sc)
	}
	dir, err := os.MkdirTemp("", "mcp-conformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cfg := mcp.ServerConfig{Type: mcp.TypeHTTP, URL: serverURL, OAuth: &mcp.OAuthConfig{
		// The suite's stand-in for a client ID metadata document.
		ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
	}}
	id, _ := sc["client_id"].(string)
	secret, _ := sc["client_secret"].(string)
	if id != "" {
		cfg.OAuth.ClientID, cfg.OAuth.ClientSecret = id, secret
	}
	if strings.HasPrefix(scenario, "auth/client-credentials") {
		cfg.OAuth = &mcp.OAuthConfig{Grant: mcp.GrantClientCredentials, ClientID: id, ClientSecret: secret}
	}
	store := mcp.NewTokenStore(dir)
	reg := tool.NewRegistry()
	m := mcp.NewManager(mcp.Options{Servers: mcp.Servers{name: cfg}, Registry: reg, Policy: mcp.Policy{Trust: true},
		Tokens: store, ClientName: "tandem-conformance", ClientVersion: "1.0.0",
		// Accept with nothing filled in: the schema's defaults apply.
		Elicit: func(context.Context, mcp.Elicitation) (mcp.ElicitAnswer, error) {
			return mcp.ElicitAnswer{Action: mcp.ElicitAccept}, nil
		}})
	defer m.Close()
	m.Start(ctx)
	if err := connected(ctx, m); err != nil {
		return err
	}
	switch {
	case scenario == "tools_call":
		return callTool(ctx, m, reg, "add_numbers", `{"a":5,"b":3}`)
	case scenario == "elicitation-sep1034-client-defaults":
		return callTool(ctx, m, reg, "test_client_elicitation_defaults", `{}`)
	case scenario == "sse-retry":
		return callTool(ctx, m, reg, "test_reconnection", `{}`)
	case strings.HasPrefix(scenario, "auth/"):
		return callTool(ctx, m, reg, "test-tool", `{}`)
	}
	return nil // initialize and the like: connecting and listing is the test
}

// connected waits for the server, signing in when it needs it.
func connected(ctx context.Context, m *mcp.Manager) error {
	signedIn := false
	for {
		st := m.Status()[0]
		switch st.State {
		case mcp.StateConnected:
			return nil
		case mcp.StateNeedsAuth:
			if signedIn {
				return fmt.Errorf("still needs sign-in after signing in: %s", st.Error)
			}
			if err := m.Login(ctx, name, follow); err != nil {
				return err
			}
			signedIn = true
		case mcp.StateFailed:
			return fmt.Errorf("server failed: %s", st.Error)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server did not connect: %s %s", st.State, st.Error)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// callTool calls the server's tool, signing in again once when the call
// asks for more scopes (step-up).
func callTool(ctx context.Context, m *mcp.Manager, reg *tool.Registry, remote, input string) error {
	for attempt := 0; ; attempt++ {
		t, ok := reg.Get(mcp.ToolName(name, remote))
		if !ok {
			return fmt.Errorf("tool %s not offered", remote)
		}
		res, err := t.Execute(ctx, tool.Call{Name: t.Name(), Input: json.RawMessage(input)})
		if err != nil {
			return err
		}
		if res.IsError && res.Meta["needs_auth"] == true && attempt == 0 {
			if err := m.Login(ctx, name, follow); err != nil {
				return err
			}
			if err := connected(ctx, m); err != nil {
				return err
			}
			continue
		}
		if res.IsError {
			return fmt.Errorf("tool %s: %s", remote, res.Content)
		}
		return nil
	}
}

// follow plays the browser: the suite's authorization server approves at
// once and redirects to the local callback, which the GET follows.
func follow(authURL string) {
	go func() {
		resp, err := http.Get(authURL)
		if err != nil {
			fmt.Fprintln(os.Stderr, "authorize:", err)
			return
		}
		resp.Body.Close()
	}()
}
