package mcp

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func promptServer(t *testing.T) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "p", Version: "1"}, nil)
	s.AddPrompt(&sdk.Prompt{Name: "review", Arguments: []*sdk.PromptArgument{{Name: "pr", Required: true}, {Name: "focus"}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			a := req.Params.Arguments
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user",
				Content: &sdk.TextContent{Text: "Review PR " + a["pr"] + " focusing on " + a["focus"]}}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "file:///notes.md", Name: "notes", MIMEType: "text/markdown"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "the notes"}}}, nil
		})
	return newHTTPTestServer(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)) + "/mcp"
}

func TestPromptAsSlashCommand(t *testing.T) {
	h := startManager(t, Servers{"gh": {Type: TypeHTTP, URL: promptServer(t)}})
	h.waitState(t, "gh", StateConnected, 10*time.Second)
	ctx := context.Background()
	text, ok, err := h.m.ExpandPromptCommand(ctx, "/mcp__gh__review 42 error handling")
	if !ok || err != nil || text != "Review PR 42 focusing on error handling" {
		t.Fatalf("got %q %v %v", text, ok, err)
	}
	if _, ok, err := h.m.ExpandPromptCommand(ctx, "/mcp__gh__review"); !ok || err == nil || !strings.Contains(err.Error(), "pr") {
		t.Fatalf("missing argument: %v %v", ok, err)
	}
	if _, ok, _ := h.m.ExpandPromptCommand(ctx, "/review 42"); ok {
		t.Fatal("a non-MCP command was taken")
	}
}

func TestResourceMentions(t *testing.T) {
	h := startManager(t, Servers{"docs": {Type: TypeHTTP, URL: promptServer(t)}})
	h.waitState(t, "docs", StateConnected, 10*time.Second)
	out, errs := h.m.ExpandResourceMentions(context.Background(), "summarise @docs:file:///notes.md and @src/main.go")
	if len(errs) != 0 || !strings.Contains(out, "<resource server=\"docs\" uri=\"file:///notes.md\">\nthe notes\n</resource>") || !strings.HasPrefix(out, "summarise @docs:file:///notes.md and @src/main.go") {
		t.Fatalf("got %q %v", out, errs)
	}
	if out, _ := h.m.ExpandResourceMentions(context.Background(), "see @other:file:///x"); out != "see @other:file:///x" {
		t.Fatalf("an unknown server's mention changed the prompt: %q", out)
	}
}
