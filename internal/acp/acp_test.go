package acp

import (
	"encoding/json"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

func TestPromptContent(t *testing.T) {
	text, images, err := promptContent([]acpsdk.ContentBlock{
		acpsdk.TextBlock("look at"),
		acpsdk.ResourceLinkBlock("main.go", "file:///src/app/main.go"),
		acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{TextResourceContents: &acpsdk.TextResourceContents{Uri: "file:///src/a.go", Text: "package a"}}),
		acpsdk.ImageBlock("aGVsbG8=", "image/png"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"look at", "[@/src/app/main.go](file:///src/app/main.go)", "<context ref=\"file:///src/a.go\">\npackage a\n</context>"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt %q lacks %q", text, want)
		}
	}
	if len(images) != 1 || images[0].Type != message.Image || images[0].MediaType != "image/png" || images[0].ImageData != "aGVsbG8=" {
		t.Errorf("images = %+v", images)
	}

	for _, bad := range [][]acpsdk.ContentBlock{
		nil,
		{acpsdk.TextBlock("  ")},
		{acpsdk.AudioBlock("AAAA", "audio/wav")},
		{acpsdk.ImageBlock("", "image/png")},
	} {
		if _, _, err := promptContent(bad, nil); err == nil {
			t.Errorf("promptContent(%+v) accepted", bad)
		}
	}
}

func TestMCPServersBecomeMcpJSONEntries(t *testing.T) {
	raw, err := mcpServers([]acpsdk.McpServer{
		{Stdio: &acpsdk.McpServerStdio{Name: "fs", Command: "mcp-fs", Args: []string{"/tmp"}, Env: []acpsdk.EnvVariable{{Name: "A", Value: "1"}}}},
		{Http: &acpsdk.McpServerHttpInline{Name: "web", Type: "http", Url: "https://mcp.example/x", Headers: []acpsdk.HttpHeader{{Name: "Authorization", Value: "Bearer t"}}}},
		{Sse: &acpsdk.McpServerSseInline{Name: "old", Type: "sse", Url: "https://mcp.example/sse", Headers: []acpsdk.HttpHeader{}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got["fs"]["type"] != "stdio" || got["fs"]["command"] != "mcp-fs" || got["fs"]["env"].(map[string]any)["A"] != "1" {
		t.Errorf("fs = %v", got["fs"])
	}
	if got["web"]["type"] != "http" || got["web"]["headers"].(map[string]any)["Authorization"] != "Bearer t" {
		t.Errorf("web = %v", got["web"])
	}
	if got["old"]["type"] != "sse" {
		t.Errorf("old = %v", got["old"])
	}
	for _, bad := range [][]acpsdk.McpServer{
		{{}},
		{{Stdio: &acpsdk.McpServerStdio{Command: "x"}}},
		{{Stdio: &acpsdk.McpServerStdio{Name: "a", Command: "x"}}, {Stdio: &acpsdk.McpServerStdio{Name: "a", Command: "y"}}},
	} {
		if _, err := mcpServers(bad); err == nil {
			t.Errorf("mcpServers(%+v) accepted", bad)
		}
	}
}

func TestToolUpdates(t *testing.T) {
	u := &updater{turns: newTurnState()}
	start, _ := u.convert(event.Event{Type: event.ToolUse, ToolUseID: "b1", ToolName: "Bash", Input: json.RawMessage(`{"command":"make test"}`)})
	if start.ToolCall == nil || start.ToolCall.Title != "make test" || start.ToolCall.Kind != acpsdk.ToolKindExecute {
		t.Fatalf("start = %+v", start.ToolCall)
	}
	// Streamed output shows as a bounded tail.
	big := strings.Repeat("x", outputTail)
	u.convert(event.Event{Type: event.ToolOutput, ToolUseID: "b1", Output: big})
	out, ok := u.convert(event.Event{Type: event.ToolOutput, ToolUseID: "b1", Output: "END"})
	if !ok || out.ToolCallUpdate == nil {
		t.Fatal("no update for output")
	}
	shown := out.ToolCallUpdate.Content[0].Content.Content.Text.Text
	if !strings.HasSuffix(shown, "END\n```") || len(shown) > outputTail+16 {
		t.Errorf("tail is %d bytes, ends %q", len(shown), shown[len(shown)-10:])
	}
	done, _ := u.convert(event.Event{Type: event.ToolResult, ToolUseID: "b1", IsError: true, Output: "exit 2"})
	if done.ToolCallUpdate == nil || *done.ToolCallUpdate.Status != acpsdk.ToolCallStatusFailed {
		t.Errorf("result = %+v", done.ToolCallUpdate)
	}

	u.convert(event.Event{Type: event.ToolUse, ToolUseID: "e1", ToolName: "MultiEdit",
		Input: json.RawMessage(`{"file_path":"/w/a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`)})
	ed, _ := u.convert(event.Event{Type: event.ToolResult, ToolUseID: "e1", Output: "ok"})
	c := ed.ToolCallUpdate.Content
	if len(c) != 2 || c[1].Diff == nil || c[1].Diff.Path != "/w/a.go" || c[1].Diff.NewText != "d" || *c[1].Diff.OldText != "c" {
		t.Errorf("diffs = %+v", c)
	}
}

func TestFenceOutlastsBackticksInOutput(t *testing.T) {
	got := fence("a\n```\nb")
	if !strings.HasPrefix(got, "````\n") || !strings.HasSuffix(got, "\n````") {
		t.Errorf("fence = %q", got)
	}
}

func TestPlanFromTodos(t *testing.T) {
	p := plan([]event.Todo{{Content: "a", Status: "completed"}, {Content: "b", Status: "in_progress"}, {Content: "c", Status: "pending"}})
	e := p.Plan.Entries
	if len(e) != 3 || e[0].Status != acpsdk.PlanEntryStatusCompleted || e[1].Status != acpsdk.PlanEntryStatusInProgress || e[2].Status != acpsdk.PlanEntryStatusPending {
		t.Errorf("plan = %+v", e)
	}
}

func TestContextBecomesUsageUpdate(t *testing.T) {
	u := &updater{turns: newTurnState()}
	got, ok := u.convert(event.Event{Type: event.Context, ContextTokens: 1200, ContextWindow: 200000})
	if !ok || got.UsageUpdate == nil || got.UsageUpdate.Used != 1200 || got.UsageUpdate.Size != 200000 {
		t.Errorf("usage update: %+v", got.UsageUpdate)
	}
}

// A prompt's long text, resource text and image data come back from the
// spool, once; a token the client wrote itself stays its text.
func TestPromptContentTakesSpooledStrings(t *testing.T) {
	sp := newSpool()
	text, res, img := strings.Repeat("t", 1<<20), strings.Repeat("r", 1<<20), strings.Repeat("QUFB", 1<<18)
	forged := spoolPrefix + strings.Repeat("f", 32)
	blocks := []acpsdk.ContentBlock{
		acpsdk.TextBlock(sp.put("in:1", text)),
		acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{TextResourceContents: &acpsdk.TextResourceContents{Uri: "file:///r", Text: sp.put("in:1", res)}}),
		acpsdk.ImageBlock(sp.put("in:1", img), "image/png"),
		acpsdk.TextBlock(forged),
	}
	got, images, err := promptContent(blocks, sp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, text+"\n<context ref=\"file:///r\">\n"+res+"\n</context>\n"+forged) || len(images) != 1 || images[0].ImageData != img {
		t.Errorf("prompt of %d bytes, %d images", len(got), len(images))
	}
	if sp.size() != 0 {
		t.Errorf("%d strings left in the spool", sp.size())
	}
	again, _, _ := promptContent(blocks[:1], sp)
	if again == text {
		t.Error("a token was taken twice")
	}
}
