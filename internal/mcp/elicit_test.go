//lint:file-ignore SA1019 the roots test lists the roots the client offers (deprecated from protocol 2026-07-28, still used)

package mcp

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// askingServer's "ask" tool puts a form to the client and reports the
// answer; its "roots" tool lists the client's roots.
func askingServer(t *testing.T) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "asking", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "ask", Description: "asks"},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Which branch?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{
					"branch": map[string]any{"type": "string", "default": "main"},
					"force":  map[string]any{"type": "boolean", "default": false},
				}}})
			if err != nil {
				return nil, nil, err
			}
			text := res.Action
			if res.Action == "accept" {
				text += " branch=" + res.Content["branch"].(string)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "roots", Description: "lists roots"},
		func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(uris, " ")}}}, nil, nil
		})
	return newHTTPTestServer(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)) + "/mcp"
}

func TestElicitationReachesTheUserWithDefaults(t *testing.T) {
	u := askingServer(t)
	var asked []Elicitation
	answers := []ElicitAnswer{{Action: ElicitAccept}, {Action: ElicitAccept, Content: map[string]any{"branch": "dev"}}, {Action: ElicitDecline}}
	h := startManager(t, Servers{"a": {Type: TypeHTTP, URL: u}}, func(o *Options) {
		o.Elicit = func(_ context.Context, q Elicitation) (ElicitAnswer, error) {
			asked = append(asked, q)
			return answers[len(asked)-1], nil
		}
	})
	h.waitState(t, "a", StateConnected, 10*time.Second)
	for _, want := range []string{"accept branch=main", "accept branch=dev", "decline"} {
		if res := h.call(t, "mcp__a__ask", map[string]any{}); res.IsError || res.Content != want {
			t.Fatalf("got %+v, want %q", res, want)
		}
	}
	if len(asked) != 3 || asked[0].Server != "a" || asked[0].Mode != "form" || asked[0].Message != "Which branch?" || !strings.Contains(string(asked[0].Schema), `"default":"main"`) {
		t.Fatalf("questions %+v", asked)
	}
}

func TestElicitationNotOfferedWithoutAnyoneToAsk(t *testing.T) {
	h := startManager(t, Servers{"a": {Type: TypeHTTP, URL: askingServer(t)}})
	h.waitState(t, "a", StateConnected, 10*time.Second)
	if res := h.call(t, "mcp__a__ask", map[string]any{}); !res.IsError {
		t.Fatalf("a client without elicitation answered: %+v", res)
	}
}

func TestRootsAreTheSessionFolders(t *testing.T) {
	h := startManager(t, Servers{"a": {Type: TypeHTTP, URL: askingServer(t)}}, func(o *Options) { o.Roots = []string{"/work/a", "/work/b c"} })
	h.waitState(t, "a", StateConnected, 10*time.Second)
	if res := h.call(t, "mcp__a__roots", map[string]any{}); res.IsError || res.Content != "file:///work/a file:///work/b%20c" {
		t.Fatalf("roots: %+v", res)
	}
}
