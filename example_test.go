package tandem_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem"
)

// demoProvider stands in for a model: asked to use a tool, it calls the
// first custom tool the request offers; given a tool's result, it reports
// it; otherwise it says how many messages it has seen.
type demoProvider struct{ tool string }

func (p demoProvider) Stream(ctx context.Context, req tandem.ModelRequest, emit func(tandem.ModelDelta)) (*tandem.ModelResponse, error) {
	last := req.Messages[len(req.Messages)-1]
	answer := func(text string) (*tandem.ModelResponse, error) {
		emit(tandem.ModelDelta{Kind: tandem.DeltaText, Text: text})
		return &tandem.ModelResponse{Content: []tandem.Block{{Type: tandem.BlockText, Text: text}}, StopReason: "end_turn"}, nil
	}
	for _, b := range last.Content {
		switch {
		case b.Type == tandem.BlockToolResult && b.IsError:
			return answer("The call failed: " + b.Content[0].Text)
		case b.Type == tandem.BlockToolResult:
			return answer("The tool said: " + b.Content[0].Text)
		case b.Type == tandem.BlockText && strings.Contains(b.Text, "use the tool") && p.tool != "":
			return &tandem.ModelResponse{Content: []tandem.Block{{Type: tandem.BlockToolUse, ID: "call_1", Name: p.tool,
				Input: json.RawMessage(`{"a":2,"b":3}`)}}, StopReason: "tool_use"}, nil
		}
	}
	return answer(fmt.Sprintf("I have seen %d messages.", len(req.Messages)))
}

// exampleHome makes a tandem home and a work folder in a temporary folder,
// and an environment that keeps the user's own files and keys out.
func exampleHome() (home, work string, getenv func(string) string, cleanup func()) {
	root, err := os.MkdirTemp("", "tandem-example-")
	if err != nil {
		panic(err)
	}
	home, work = filepath.Join(root, "home"), filepath.Join(root, "work")
	os.MkdirAll(work, 0o755)
	return home, work, func(k string) string {
		if k == "HOME" {
			return root
		}
		return ""
	}, func() { os.RemoveAll(root) }
}

type addInput struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

// A program gives tandem a tool and a model provider, runs one prompt in
// a folder and prints what happens.
func Example() {
	home, work, getenv, cleanup := exampleHome()
	defer cleanup()
	ctx := context.Background()

	add, err := tandem.NewTool("add", "Add two numbers.",
		func(ctx context.Context, call tandem.ToolCall, in addInput) (tandem.ToolResult, error) {
			return tandem.ToolResult{Content: fmt.Sprint(in.A + in.B)}, nil
		})
	if err != nil {
		panic(err)
	}
	add.ReadOnly = true // runs without asking

	eng, err := tandem.Open(ctx, tandem.Options{
		Home: home, Getenv: getenv,
		Providers: map[string]tandem.Provider{"demo": demoProvider{tool: "add"}},
		Model:     "demo/model-1",
		Tools:     []tandem.Tool{add},
	})
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	s, err := eng.NewSession(ctx, tandem.SessionOptions{Dir: work, OnEvent: func(e tandem.Event) {
		switch e.Type {
		case tandem.EventToolUse:
			fmt.Println("tool call:", e.ToolName, string(e.Input))
		case tandem.EventToolResult:
			fmt.Println("tool result:", e.Output)
		}
	}})
	if err != nil {
		panic(err)
	}
	defer s.Close()

	res, err := s.Run(ctx, "use the tool to add 2 and 3", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("answer:", res.Text)
	// Output:
	// tool call: add {"a":2,"b":3}
	// tool result: 5
	// answer: The tool said: 5
}

// A tool that is not read-only asks before it runs (in the normal
// permission mode); the program answers in code.
func ExampleOptions_permission() {
	home, work, getenv, cleanup := exampleHome()
	defer cleanup()
	ctx := context.Background()

	deploy := tandem.Tool{Name: "deploy", Description: "Deploy the build.",
		Run: func(ctx context.Context, call tandem.ToolCall) (tandem.ToolResult, error) {
			return tandem.ToolResult{Content: "deployed"}, nil
		}}
	eng, err := tandem.Open(ctx, tandem.Options{
		Home: home, Getenv: getenv,
		Providers:      map[string]tandem.Provider{"demo": demoProvider{tool: "deploy"}},
		Model:          "demo/model-1",
		Tools:          []tandem.Tool{deploy},
		PermissionMode: tandem.ModeNormal,
		Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
			fmt.Println("asked:", req.ToolName, string(req.Input))
			return tandem.PermissionDecision{Behavior: tandem.Deny, Message: "not on a Friday"}
		},
	})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	s, err := eng.NewSession(ctx, tandem.SessionOptions{Dir: work})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	res, err := s.Run(ctx, "use the tool to deploy", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("denied:", res.PermissionDenials[0].ToolName)
	fmt.Println("answer:", res.Text)
	// Output:
	// asked: deploy {"a":2,"b":3}
	// denied: deploy
	// answer: The call failed: Permission denied: The user denied this call. They said: not on a Friday
}

// A session is stored: a later program (or `tandem run --resume ID`)
// continues the conversation.
func ExampleEngine_ResumeSession() {
	home, work, getenv, cleanup := exampleHome()
	defer cleanup()
	ctx := context.Background()
	opts := tandem.Options{Home: home, Getenv: getenv, Model: "demo/model-1",
		Providers: map[string]tandem.Provider{"demo": demoProvider{}}}

	eng, err := tandem.Open(ctx, opts)
	if err != nil {
		panic(err)
	}
	s, err := eng.NewSession(ctx, tandem.SessionOptions{Dir: work})
	if err != nil {
		panic(err)
	}
	res, err := s.Run(ctx, "hello", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	id := s.ID()
	s.Close()
	eng.Close()

	eng, err = tandem.Open(ctx, opts)
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	s, err = eng.ResumeSession(ctx, id, tandem.SessionOptions{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	res, err = s.Run(ctx, "hello again", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	// Output:
	// I have seen 1 messages.
	// I have seen 3 messages.
}

// MCP servers given in code start with each session; their tools reach
// the model as mcp__NAME__TOOL.
func ExampleMCPServer() {
	ctx := context.Background()
	eng, err := tandem.Open(ctx, tandem.Options{
		MCPServers: []tandem.MCPServer{
			{Name: "files", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}},
			{Name: "docs", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ..."}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
}

// Stream ranges over a turn's events instead of taking a callback.
func ExampleSession_Stream() {
	home, work, getenv, cleanup := exampleHome()
	defer cleanup()
	ctx := context.Background()
	eng, err := tandem.Open(ctx, tandem.Options{Home: home, Getenv: getenv, Model: "demo/model-1",
		Providers: map[string]tandem.Provider{"demo": demoProvider{}}})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	s, err := eng.NewSession(ctx, tandem.SessionOptions{Dir: work})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	for e, err := range s.Stream(ctx, "hello", nil) {
		if err != nil {
			panic(err)
		}
		switch e.Type {
		case tandem.EventText:
			fmt.Println("text:", e.Text)
		case tandem.EventResult:
			fmt.Println("result:", e.Subtype)
		}
	}
	// Output:
	// text: I have seen 1 messages.
	// result: success
}
