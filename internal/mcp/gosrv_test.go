package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandem-agent/tandem/internal/mcp/mcpws"
	"github.com/tandem-agent/tandem/internal/sandbox"
)

// helperEnv makes the test binary act as an MCP server (see TestMain).
const helperEnv = "TANDEM_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg { // the sandbox's launcher role
		os.Exit(sandbox.Exec(os.Args[2:]))
	}
	if os.Getenv(helperEnv) == "crashy" {
		runCrashyServer()
		return
	}
	os.Exit(m.Run())
}

type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

// runCrashyServer is a stdio server whose "crash" tool kills the process
// in the middle of the call, after saying why on stderr.
func runCrashyServer() {
	s := sdk.NewServer(&sdk.Implementation{Name: "crashy", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "ping", Description: "answers pong and the pid"},
		func(context.Context, *sdk.CallToolRequest, echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("pong %d", os.Getpid())}}}, nil, nil
		})
	if os.Getenv(helperEnv+"_WRITE") != "" { // TestStdioServerInSandbox
		sdk.AddTool(s, &sdk.Tool{Name: "write", Description: "writes x to the file named by text"},
			func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
				if err := os.WriteFile(in.Text, []byte("x"), 0o644); err != nil {
					return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil, nil
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "written"}}}, nil, nil
			})
	}
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "dies mid-call"},
		func(context.Context, *sdk.CallToolRequest, echoIn) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "fatal: simulated crash in the middle of a call")
			time.Sleep(50 * time.Millisecond)
			os.Exit(3)
			return nil, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func TestCrashMidCallGivesErrorAndReconnects(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := startManager(t, Servers{"crashy": {Command: exe, Env: map[string]string{helperEnv: "crashy"}}})
	h.waitState(t, "crashy", StateConnected, 10*time.Second)
	first := h.call(t, "mcp__crashy__ping", map[string]any{"text": "x"})
	if first.IsError || !strings.HasPrefix(first.Content, "pong ") {
		t.Fatalf("ping: %+v", first)
	}
	res := h.call(t, "mcp__crashy__crash", map[string]any{"text": "x"})
	if !res.IsError || !strings.Contains(res.Content, "mcp server crashy stopped while running crash") ||
		!strings.Contains(res.Content, "simulated crash") {
		t.Fatalf("crash result: %+v", res)
	}
	// The manager restarts it: a new process answers.
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if st := h.waitState(t, "crashy", StateConnected, 10*time.Second); st.State == StateConnected {
			again := h.call(t, "mcp__crashy__ping", map[string]any{"text": "x"})
			if !again.IsError && again.Content != first.Content {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("server was not restarted")
}

func TestWebSocketServerAndListChanged(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "ws-test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "shout", Description: "upper-cases text",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "a greeting"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "hi"}}}}, nil
	})
	hs := httptest.NewServer(mcpws.Handler(func(*http.Request) *sdk.Server { return s }))
	t.Cleanup(hs.Close)
	url := "ws" + strings.TrimPrefix(hs.URL, "http")

	h := startManager(t, Servers{"sock": {Type: TypeWS, URL: url}})
	st := h.waitState(t, "sock", StateConnected, 10*time.Second)
	if st.ServerName != "ws-test" || st.Tools != 1 {
		t.Fatalf("status %+v", st)
	}
	res := h.call(t, "mcp__sock__shout", map[string]any{"text": "quiet"})
	if res.IsError || res.Content != "QUIET" {
		t.Fatalf("shout: %+v", res)
	}

	// A tool added on the server reaches the registry via list_changed.
	sdk.AddTool(s, &sdk.Tool{Name: "whisper", Description: "lower-cases text"},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToLower(in.Text)}}}, nil, nil
		})
	waitFor(t, func() bool { _, ok := h.reg.Get("mcp__sock__whisper"); return ok }, "whisper added")
	tl, _ := h.reg.Get("mcp__sock__whisper")
	if _, ok := tl.(interface{ ReadOnly() bool }); ok && tl.(interface{ ReadOnly() bool }).ReadOnly() {
		t.Fatal("whisper has no readOnlyHint")
	}
	s.RemoveTools("shout")
	waitFor(t, func() bool { _, ok := h.reg.Get("mcp__sock__shout"); return !ok }, "shout removed")

	s.AddPrompt(&sdk.Prompt{Name: "part"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{}, nil
	})
	waitFor(t, func() bool { return len(h.m.Prompts()) == 2 }, "prompt list refreshed")

	// Disable withdraws the tools, Enable brings them back.
	if err := h.m.Disable("sock"); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.reg.Get("mcp__sock__whisper"); ok {
		t.Fatal("tool still registered after Disable")
	}
	res = h.call(t, ListResourcesToolName, map[string]any{})
	if res.IsError {
		t.Fatalf("list resources with nothing connected: %+v", res)
	}
	if err := h.m.Enable("sock"); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, "sock", StateConnected, 10*time.Second)
	if _, ok := h.reg.Get("mcp__sock__whisper"); !ok {
		t.Fatalf("tool missing after Enable: %v", h.reg.Names())
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for: %s", what)
}
