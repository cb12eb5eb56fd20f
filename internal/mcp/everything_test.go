package mcp

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/tool"
)

// checkEverything exercises the everything server's tools, resources and
// prompts through a connected manager.
func checkEverything(t *testing.T, h *harness) {
	st := h.waitState(t, "ev", StateConnected, 30*time.Second)
	if st.Tools < 5 || st.Prompts == 0 || st.Resources == 0 {
		t.Fatalf("status %+v: want tools, prompts and resources", st)
	}

	t.Run("echo", func(t *testing.T) {
		res := h.call(t, "mcp__ev__echo", map[string]any{"message": "hello there"})
		if res.IsError || res.Content != "Echo: hello there" {
			t.Fatalf("echo: %+v", res)
		}
		tl, _ := h.reg.Get("mcp__ev__echo")
		if ro, ok := tl.(tool.ReadOnly); !ok || !ro.ReadOnly() {
			t.Fatal("echo declares readOnlyHint; the tool should be ReadOnly")
		}
		if !strings.Contains(string(tl.Schema()), `"message"`) {
			t.Fatalf("schema %s lacks message", tl.Schema())
		}
	})
	t.Run("sum", func(t *testing.T) {
		res := h.call(t, "mcp__ev__get-sum", map[string]any{"a": 2, "b": 40})
		if res.IsError || !strings.Contains(res.Content, "42") {
			t.Fatalf("sum: %+v", res)
		}
	})
	t.Run("structured", func(t *testing.T) {
		res := h.call(t, "mcp__ev__get-structured-content", map[string]any{"location": "Chicago"})
		if res.IsError || !strings.Contains(res.Content, `"temperature":36`) {
			t.Fatalf("structured: %+v", res)
		}
		if strings.Count(res.Content, "temperature") != 1 {
			t.Fatalf("structured content duplicated: %q", res.Content)
		}
	})
	t.Run("image", func(t *testing.T) {
		res := h.call(t, "mcp__ev__get-tiny-image", map[string]any{})
		if res.IsError || len(res.Images) != 1 || res.Images[0].Type != message.Image ||
			res.Images[0].MediaType != "image/png" || res.Images[0].ImageData == "" {
			t.Fatalf("image: %+v", res)
		}
		if !strings.Contains(res.Content, "MCP logo") {
			t.Fatalf("image text: %q", res.Content)
		}
	})
	t.Run("embedded resource", func(t *testing.T) {
		res := h.call(t, "mcp__ev__get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 3})
		if res.IsError || !strings.Contains(res.Content, "[resource demo://resource/dynamic/text/3]") {
			t.Fatalf("resource reference: %+v", res)
		}
	})
	t.Run("bad input is a tool error", func(t *testing.T) {
		res := h.call(t, "mcp__ev__get-sum", map[string]any{"a": "x"})
		if !res.IsError {
			t.Fatalf("want error result: %+v", res)
		}
	})
	t.Run("resources", func(t *testing.T) {
		list := h.call(t, ListResourcesToolName, map[string]any{"server": "ev"})
		if list.IsError || !strings.Contains(list.Content, "demo://resource/static/document/") {
			t.Fatalf("list: %+v", list)
		}
		rs, err := h.m.Resources("ev")
		if err != nil {
			t.Fatal(err)
		}
		var uri string
		for _, r := range rs {
			if strings.HasSuffix(r.URI, ".md") {
				uri = r.URI
			}
		}
		read := h.call(t, ReadResourceToolName, map[string]any{"server": "ev", "uri": uri})
		if read.IsError || len(read.Content) < 50 {
			t.Fatalf("read %s: %+v", uri, read)
		}
		bad := h.call(t, ReadResourceToolName, map[string]any{"server": "nope", "uri": uri})
		if !bad.IsError || !strings.Contains(bad.Content, `"nope"`) {
			t.Fatalf("unknown server: %+v", bad)
		}
	})
	t.Run("prompts", func(t *testing.T) {
		var found bool
		for _, p := range h.m.Prompts() {
			if p.Server == "ev" && p.Name == "args-prompt" {
				found = len(p.Arguments) > 0
			}
		}
		if !found {
			t.Fatalf("args-prompt with arguments not listed: %+v", h.m.Prompts())
		}
		pr, err := h.m.GetPrompt(context.Background(), "ev", "simple-prompt", nil)
		if err != nil || len(pr.Messages) != 1 || pr.Messages[0].PlainText() != "This is a simple prompt without arguments." {
			t.Fatalf("simple-prompt: %+v %v", pr, err)
		}
	})
	t.Run("long call times out", func(t *testing.T) {
		srv, _ := h.m.get("ev")
		srv.mu.Lock()
		srv.cfg.Timeout = Duration(time.Second)
		srv.mu.Unlock()
		defer func() { srv.mu.Lock(); srv.cfg.Timeout = 0; srv.mu.Unlock() }()
		start := time.Now()
		res := h.call(t, "mcp__ev__trigger-long-running-operation", map[string]any{"duration": 60, "steps": 5})
		if !res.IsError || !res.Timeout || !strings.Contains(res.Content, "did not answer within 1s") {
			t.Fatalf("want timeout: %+v", res)
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("timeout took %s", time.Since(start))
		}
		// A short run after the timeout works, and its progress
		// notifications arrive as tool_output events of the call.
		var mu sync.Mutex
		var outs []event.Event
		env := tool.NewEnv("s", t.TempDir(), nil, t.TempDir())
		env.Emit = func(e event.Event) { mu.Lock(); outs = append(outs, e); mu.Unlock() }
		tl, _ := h.reg.Get("mcp__ev__trigger-long-running-operation")
		ok, err := tl.Execute(context.Background(), tool.Call{ID: "call-7", Input: []byte(`{"duration":0.2,"steps":2}`), Env: env})
		if err != nil || ok.IsError || !strings.Contains(ok.Content, "completed") {
			t.Fatalf("short run after a timeout: %+v %v", ok, err)
		}
		mu.Lock()
		defer mu.Unlock()
		// The last notification may race the result and be dropped.
		if len(outs) == 0 || outs[0].Type != event.ToolOutput || outs[0].ToolUseID != "call-7" ||
			!strings.HasPrefix(outs[0].Output, "progress ") || !strings.HasSuffix(outs[0].Output, "/2\n") ||
			outs[0].ToolName != "mcp__ev__trigger-long-running-operation" {
			t.Fatalf("progress events: %+v", outs)
		}
	})
}

func TestEverythingStdio(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	h := startManager(t, Servers{"ev": {Command: bin}})
	if !h.m.WaitReady(context.Background(), 30*time.Second) {
		t.Fatalf("not ready: %+v", h.m.Status())
	}
	checkEverything(t, h)
	t.Run("list_changed adds the roots tool", func(t *testing.T) {
		// The server registers get-roots-list after initialize because our
		// client advertises roots, then sends tools/list_changed.
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if _, ok := h.reg.Get("mcp__ev__get-roots-list"); ok {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("get-roots-list never appeared: %v", h.reg.Names())
	})
}
