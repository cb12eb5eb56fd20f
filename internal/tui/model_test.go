package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

func (f *fakeBackend) snapshot() fakeBackend {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fakeBackend{prompts: append([]string{}, f.prompts...), replies: append([]permission.Answer{}, f.replies...),
		modes: append([]string{}, f.modes...), opened: append([]string{}, f.opened...), canceled: f.canceled}
}

func jsonIn(v any) json.RawMessage { b, _ := json.Marshal(v); return b }

func TestPromptStreamsMarkdownAnswer(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("hello there")
	h.press(tea.KeyEnter, 0)
	h.waitFor("the turn to start", func() bool { return len(h.be.snapshot().prompts) == 1 })
	if got := h.be.snapshot().prompts[0]; got != "hello there" {
		t.Fatalf("prompt %q", got)
	}
	h.mustShow("› hello there")
	h.mustShow("working")
	h.events(event.Event{Type: event.Text, Text: "Here is **bold** and `code`"})
	h.events(event.Event{Type: event.Text, Text: " and more."})
	h.waitFor("the streamed text", func() bool { return h.contains("and more.") })
	if h.contains("**bold**") {
		t.Errorf("Markdown not rendered:\n%s", h.plain())
	}
	h.be.release <- event.Event{Type: event.Result, Subtype: event.SubtypeSuccess}
	h.waitFor("the turn to end", func() bool { return !h.m.busy })
	h.mustShow("/help")
}

func TestToolCardsShowTailDiffAndErrors(t *testing.T) {
	h := newHarness(t, Options{})
	h.events(
		event.Event{Type: event.ToolUse, ToolUseID: "t1", ToolName: "Bash", Input: jsonIn(map[string]any{"command": "make test"})},
		event.Event{Type: event.ToolOutput, ToolUseID: "t1", Output: "line 1\nline 2\nline 3\n"},
	)
	h.mustShow("Bash(make test)")
	h.mustShow("line 3")
	for i := 0; i < 20; i++ {
		h.events(event.Event{Type: event.ToolOutput, ToolUseID: "t1", Output: "out " + string(rune('a'+i)) + "\n"})
	}
	if h.contains("line 1") || !h.contains("out t") {
		t.Errorf("running card should show only the tail:\n%s", h.plain())
	}
	h.events(event.Event{Type: event.ToolResult, ToolUseID: "t1", Output: "exit status 2", IsError: true},
		event.Event{Type: event.ToolUse, ToolUseID: "t2", ToolName: "Edit", Input: jsonIn(map[string]any{"file_path": "main.go"})},
		event.Event{Type: event.ToolResult, ToolUseID: "t2", Output: "edited", Diff: "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-old line\n+new line\n"},
		event.Event{Type: event.Retry, Attempt: 2, DelayMS: 1500, Error: "overloaded"},
		event.Event{Type: event.Error, Error: "provider said no"},
	)
	for _, s := range []string{"exit status 2", "Edit(main.go)", "-old line", "+new line", "retrying in 1.5s (attempt 2): overloaded", "provider said no"} {
		h.mustShow(s)
	}
	// The diff is coloured: green additions, red removals.
	scr := h.m.screen()
	if !strings.Contains(scr, "\x1b[32m+new line") || !strings.Contains(scr, "\x1b[31m-old line") {
		t.Errorf("diff not coloured: %q", scr)
	}
}

func TestThinkingCollapsesAndExpands(t *testing.T) {
	h := newHarness(t, Options{})
	h.events(event.Event{Type: event.Thinking, Text: "first idea\nsecond idea"}, event.Event{Type: event.Text, Text: "answer"})
	h.mustShow("Thinking (2 lines, ctrl+o to show)")
	if h.contains("second idea") {
		t.Fatal("thinking shown while collapsed")
	}
	h.press('o', tea.ModCtrl)
	h.mustShow("second idea")
}

func TestPermissionDialogAnswersByKeys(t *testing.T) {
	h := newHarness(t, Options{})
	ask := func(id string) {
		h.events(event.Event{Type: event.PermissionRequest, RequestID: id, ToolName: "Bash", ToolUseID: "t" + id,
			Summary: "Run `rm -rf build`", Suggestion: "Bash(rm:*)", Message: "deletes files"})
	}
	ask("1")
	h.mustShow("tandem wants to: Run `rm -rf build`")
	h.mustShow("allow always: Bash(rm:*)")
	h.typeText("y")
	ask("2")
	h.typeText("a")
	h.mustShow("Save Bash(rm:*) for")
	h.typeText("p")
	ask("3")
	h.typeText("n")
	h.typeText("use make clean")
	h.press(tea.KeyEnter, 0)
	h.waitFor("three replies", func() bool { return len(h.be.snapshot().replies) == 3 })
	r := h.be.snapshot().replies
	if r[0].Decision != permission.AllowOnce || r[1].Decision != permission.AllowAlways || r[1].Scope != permission.ScopeProject ||
		r[2].Decision != permission.DenyCall || r[2].Message != "use make clean" {
		t.Fatalf("replies %+v", r)
	}
	if h.contains("tandem wants to") {
		t.Fatalf("dialog still open:\n%s", h.plain())
	}
	// A request answered elsewhere (the web UI) closes the dialog.
	ask("4")
	h.events(event.Event{Type: event.PermissionReply, RequestID: "4", Decision: "allow_once"})
	if h.contains("tandem wants to") {
		t.Fatalf("dialog answered elsewhere still open:\n%s", h.plain())
	}
}

// A question that appears while the user types takes none of their keys
// for an answer: for a moment they still go to the prompt, shown below
// it; then the dialog takes them.
func TestPermissionDialogArms(t *testing.T) {
	h := newHarness(t, Options{})
	clock := time.Now()
	h.m.now = func() time.Time { return clock }
	h.m.armDelay = dialogArmDelay
	h.typeText("first")
	h.press(tea.KeyEnter, 0)
	h.waitFor("the turn", func() bool { return h.m.busy })
	h.typeText("yes do ")
	h.events(event.Event{Type: event.PermissionRequest, RequestID: "1", ToolName: "Bash", ToolUseID: "t1", Summary: "Run make"})
	h.mustShow("tandem wants to: Run make")
	h.mustShow("answers open in a moment")
	h.typeText("n")
	h.press(tea.KeyEnter, 0)
	h.mustShow("queued: yes do n")
	if r := h.be.snapshot().replies; len(r) != 0 {
		t.Fatalf("keys typed as the dialog appeared answered it: %+v", r)
	}
	clock = clock.Add(dialogArmDelay)
	h.send(armedMsg{})
	h.mustShow("[y] allow once")
	if h.contains("answers open in a moment") {
		t.Fatalf("dialog still unarmed:\n%s", h.plain())
	}
	h.typeText("y")
	h.waitFor("the reply", func() bool { return len(h.be.snapshot().replies) == 1 })
	if r := h.be.snapshot().replies[0]; r.Decision != permission.AllowOnce {
		t.Fatalf("reply %+v", r)
	}
}

func TestMessagesTypedDuringATurnAreQueued(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("first")
	h.press(tea.KeyEnter, 0)
	h.waitFor("turn 1", func() bool { return len(h.be.snapshot().prompts) == 1 })
	h.typeText("second")
	h.press(tea.KeyEnter, 0)
	h.mustShow("queued: second")
	h.be.release <- event.Event{Type: event.Result}
	h.waitFor("turn 2", func() bool { return len(h.be.snapshot().prompts) == 2 })
	if p := h.be.snapshot().prompts[1]; p != "second" {
		t.Fatalf("second prompt %q", p)
	}
	if h.contains("queued:") {
		t.Errorf("queue not emptied:\n%s", h.plain())
	}
}

func TestEscInterruptsAndUIStaysUsable(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("long job")
	h.press(tea.KeyEnter, 0)
	h.waitFor("turn", func() bool { return len(h.be.snapshot().prompts) == 1 })
	h.events(event.Event{Type: event.ToolUse, ToolUseID: "t1", ToolName: "Bash", Input: jsonIn(map[string]any{"command": "sleep 100"})})
	h.press(tea.KeyEscape, 0)
	h.waitFor("the interrupt", func() bool { return h.be.snapshot().canceled == 1 && !h.m.busy })
	h.mustShow("interrupted")
	h.typeText("next")
	h.press(tea.KeyEnter, 0)
	h.waitFor("turn 2", func() bool { return len(h.be.snapshot().prompts) == 2 })
}

func TestShiftTabCyclesMode(t *testing.T) {
	h := newHarness(t, Options{})
	for _, want := range []string{"explore", "trust", "normal"} {
		h.press(tea.KeyTab, tea.ModShift)
		h.waitFor("mode "+want, func() bool { m := h.be.snapshot().modes; return len(m) > 0 && m[len(m)-1] == want })
		h.mustShow(want)
	}
	h.typeText("/mode explore")
	h.press(tea.KeyEnter, 0)
	h.waitFor("mode via /mode", func() bool { m := h.be.snapshot().modes; return m[len(m)-1] == "explore" })
	h.typeText("/mode plan") // Claude Code's name for explore
	h.press(tea.KeyEnter, 0)
	h.waitFor("plan = explore", func() bool { return len(h.be.snapshot().modes) == 5 })
	if m := h.be.snapshot().modes; m[4] != "explore" {
		t.Fatalf("modes %v", m)
	}
}

func TestSlashCompletion(t *testing.T) {
	h := newHarness(t, Options{Commands: []Command{{Name: "review", Help: "review the diff", Prompt: func(a string) string { return "Review " + a }}}})
	h.typeText("/mo")
	h.mustShow("/mode")
	h.mustShow("/model")
	h.press(tea.KeyTab, 0)
	if v := h.m.in.value(); v != "/mode " && v != "/model " {
		t.Fatalf("tab completed to %q", v)
	}
	h.m.in.reset()
	h.typeText("/rev")
	h.mustShow("review the diff")
	h.m.in.reset()
	h.typeText("/review main.go")
	h.press(tea.KeyEnter, 0)
	h.waitFor("the custom command's prompt", func() bool { p := h.be.snapshot().prompts; return len(p) == 1 && p[0] == "Review main.go" })
	// An unknown "command" is a prompt (a path, say).
	h.be.release <- event.Event{Type: event.Result}
	h.waitFor("idle", func() bool { return !h.m.busy })
	h.typeText("/etc/hosts looks wrong")
	h.press(tea.KeyEscape, 0) // close the (empty) popup if any
	h.press(tea.KeyEnter, 0)
	h.waitFor("the path prompt", func() bool { p := h.be.snapshot().prompts; return len(p) == 2 && p[1] == "/etc/hosts looks wrong" })
}

func TestFileMentionFuzzyCompletion(t *testing.T) {
	h := newHarness(t, Options{Files: func() []string {
		return []string{"README.md", "internal/tui/model.go", "internal/tui/view.go", "cmd/main.go"}
	}})
	h.typeText("look at @tuimod")
	h.waitFor("file popup", func() bool { return h.contains("internal/tui/model.go") })
	h.press(tea.KeyTab, 0)
	if v := h.m.in.value(); v != "look at @internal/tui/model.go " {
		t.Fatalf("mention completed to %q", v)
	}
}

func TestLargePasteFoldsAndExpands(t *testing.T) {
	h := newHarness(t, Options{})
	big := strings.Repeat("pasted line\n", 40)
	h.send(tea.PasteMsg{Content: big})
	h.mustShow("[Pasted text #1 +41 lines]")
	h.press(tea.KeyEnter, 0)
	h.waitFor("turn", func() bool { return len(h.be.snapshot().prompts) == 1 })
	if p := h.be.snapshot().prompts[0]; p != big {
		t.Fatalf("paste not expanded: %q", p[:min(len(p), 80)])
	}
}

func TestHistoryAndMultiline(t *testing.T) {
	h := newHarness(t, Options{HistoryFile: t.TempDir() + "/h.jsonl"})
	h.typeText("one")
	h.press(tea.KeyEnter, 0)
	h.be.release <- event.Event{Type: event.Result}
	h.waitFor("idle", func() bool { return len(h.be.snapshot().prompts) == 1 && !h.m.busy })
	h.typeText("two")
	h.press('j', tea.ModCtrl)
	h.typeText("lines")
	if v := h.m.in.value(); v != "two\nlines" {
		t.Fatalf("multi-line value %q", v)
	}
	h.m.in.reset()
	h.press(tea.KeyUp, 0)
	if v := h.m.in.value(); v != "one" {
		t.Fatalf("history up gave %q", v)
	}
	h.press(tea.KeyDown, 0)
	if v := h.m.in.value(); v != "" {
		t.Fatalf("history down gave %q", v)
	}
	// The history survives a restart.
	h2 := newHarness(t, Options{HistoryFile: h.m.opts.HistoryFile})
	h2.press(tea.KeyUp, 0)
	if v := h2.m.in.value(); v != "one" {
		t.Fatalf("history not kept: %q", v)
	}
}

func TestCtrlCTwiceQuits(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("draft")
	h.press('c', tea.ModCtrl)
	if h.quit || h.m.in.value() != "" {
		t.Fatalf("first ctrl+c should clear, not quit (quit=%v, value %q)", h.quit, h.m.in.value())
	}
	h.mustShow("press ctrl+c again to quit")
	h.press('c', tea.ModCtrl)
	if !h.quit {
		t.Fatal("second ctrl+c did not quit")
	}
	h2 := newHarness(t, Options{})
	h2.press('d', tea.ModCtrl)
	if !h2.quit {
		t.Fatal("ctrl+d did not quit")
	}
}

func TestCtrlCInterruptsTheTurn(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("work")
	h.press(tea.KeyEnter, 0)
	h.waitFor("turn", func() bool { return len(h.be.snapshot().prompts) == 1 })
	h.press('c', tea.ModCtrl)
	h.waitFor("the interrupt", func() bool { return h.be.snapshot().canceled == 1 && !h.m.busy })
	if h.quit {
		t.Fatal("one ctrl+c quit")
	}
}

func TestQuitDuringTurnInterruptsFirst(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("work")
	h.press(tea.KeyEnter, 0)
	h.waitFor("turn", func() bool { return len(h.be.snapshot().prompts) == 1 })
	h.press('d', tea.ModCtrl)
	h.waitFor("quit after the turn ended", func() bool { return h.quit })
	if h.be.snapshot().canceled != 1 {
		t.Fatal("turn not interrupted before quitting")
	}
}

func TestLayoutFitsAnySize(t *testing.T) {
	h := newHarness(t, Options{})
	h.events(event.Event{Type: event.Text, Text: strings.Repeat("a very long line of streamed text ", 50) + "\n\n```go\nfunc main() {}\n```"},
		event.Event{Type: event.ToolUse, ToolUseID: "t", ToolName: "Bash", Input: jsonIn(map[string]any{"command": strings.Repeat("x", 300)})},
		event.Event{Type: event.ToolOutput, ToolUseID: "t", Output: "\x1b[31mred\x1b[0m\tand a tab " + strings.Repeat("y", 300) + "\n"})
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {40, 12}, {200, 60}} {
		h.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		h.settle()
		lines := strings.Split(h.m.screen(), "\n")
		if len(lines) != sz[1] {
			t.Errorf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > sz[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", sz[0], sz[1], i, w, l)
			}
		}
	}
}

func TestNoColor(t *testing.T) {
	h := newHarness(t, Options{Env: []string{"NO_COLOR=1", "TERM=xterm-256color"}})
	h.events(event.Event{Type: event.Text, Text: "**hi**"},
		event.Event{Type: event.ToolUse, ToolUseID: "t", ToolName: "Edit", Input: jsonIn(map[string]any{"file_path": "a"})},
		event.Event{Type: event.ToolResult, ToolUseID: "t", Diff: "@@ -1 +1 @@\n-a\n+b\n"})
	scr := h.m.screen()
	for _, sgr := range []string{"\x1b[31m", "\x1b[32m", "\x1b[38;5;", "\x1b[91m", "\x1b[38;2;"} {
		if strings.Contains(scr, sgr) {
			t.Fatalf("NO_COLOR screen has colour %q: %q", sgr, scr)
		}
	}
}

func TestResumePickerAndHistory(t *testing.T) {
	h := newHarness(t, Options{})
	h.be.mu.Lock() // the model loads its first history in the background
	h.be.sessions = []session.Summary{{ID: "ses_old", Title: "fix the parser"}, {ID: "ses_1", Title: "this one"}}
	h.be.history = []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("earlier question")}},
		{Role: message.Assistant, Content: []message.Block{message.TextBlock("earlier answer"), {Type: message.ToolUse, ID: "tu", Name: "Read", Input: jsonIn(map[string]any{"file_path": "go.mod"})}}},
		{Role: message.User, Content: []message.Block{{Type: message.ToolResult, ToolUseID: "tu", Content: []message.Block{message.TextBlock("module x")}}}},
	}
	h.be.mu.Unlock()
	h.typeText("/resume")
	h.press(tea.KeyEnter, 0)
	h.waitFor("picker", func() bool { return h.contains("fix the parser") })
	h.typeText("parser")
	h.press(tea.KeyEnter, 0)
	h.waitFor("history", func() bool { return h.contains("earlier answer") })
	if o := h.be.snapshot().opened; len(o) != 1 || o[0] != "ses_old" {
		t.Fatalf("opened %v", o)
	}
	h.mustShow("earlier question")
	h.mustShow("Read(go.mod)")
	h.mustShow("module x")
}

func TestNestedSubAgentCards(t *testing.T) {
	h := newHarness(t, Options{})
	h.events(event.Event{Type: event.ToolUse, ToolUseID: "task", ToolName: "Task", Input: jsonIn(map[string]any{"description": "explore the repo"})},
		event.Event{Type: event.ToolUse, ToolUseID: "c1", ToolName: "Grep", Input: jsonIn(map[string]any{"pattern": "TODO"}), Meta: map[string]any{"parent_tool_use_id": "task"}},
		event.Event{Type: event.ToolResult, ToolUseID: "c1", Output: "3 matches", Meta: map[string]any{"parent_tool_use_id": "task"}})
	// The sub-agent's own text and turn end stay inside its card.
	h.events(event.Event{Type: event.Text, Text: "sub-agent says hi\n", Meta: map[string]any{"parent_tool_use_id": "task"}},
		event.Event{Type: event.Result, Meta: map[string]any{"parent_tool_use_id": "task"}})
	if h.m.tr.openText != nil || h.m.tr.items[len(h.m.tr.items)-1].kind != kindTool {
		t.Fatal("sub-agent text became the main answer")
	}
	h.mustShow("sub-agent says hi")
	if _, c := h.m.card("task"); c.state != toolRunning {
		t.Fatal("sub-agent's result ended the parent card")
	}
	scr := h.plain()
	task := strings.Index(scr, "Task(explore the repo)")
	child := strings.Index(scr, "  ● Grep(TODO)")
	if task < 0 || child < task {
		t.Fatalf("child card not nested under its Task:\n%s", scr)
	}
}

// A resumed session shows a sub-agent's calls nested in the card of the
// call that started it, finished with their stored results, as they were
// shown live.
func TestResumedSubagentNested(t *testing.T) {
	h := newHarness(t, Options{})
	use := func(id, name string, in map[string]any) message.Block {
		return message.Block{Type: message.ToolUse, ID: id, Name: name, Input: jsonIn(in)}
	}
	result := func(id, text string) message.Block {
		return message.Block{Type: message.ToolResult, ToolUseID: id, Content: []message.Block{message.TextBlock(text)}}
	}
	// The harness's model loads its first history in the background:
	// the backend's fields are set under its lock.
	h.be.mu.Lock()
	h.be.sessions = []session.Summary{{ID: "ses_old", Title: "explore"}}
	h.be.history = []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("explore the repo")}},
		{Role: message.Assistant, Content: []message.Block{use("task", "Task", map[string]any{"description": "explore the repo"})}},
		{Role: message.User, Content: []message.Block{result("task", "found three")}},
		{Role: message.Assistant, Content: []message.Block{message.TextBlock("all explored")}},
	}
	h.be.subs = []session.SubagentRun{{Session: session.Summary{ID: "ses_kid", ParentID: "ses_old", ParentToolUseID: "task"}, Messages: []message.Message{
		{Role: message.User, Content: []message.Block{message.TextBlock("CHILD PROMPT")}},
		{Role: message.Assistant, Content: []message.Block{message.TextBlock("child thinks aloud"), use("c1", "Grep", map[string]any{"pattern": "TODO"})}},
		{Role: message.User, Content: []message.Block{result("c1", "3 matches")}},
		{Role: message.Assistant, Content: []message.Block{message.TextBlock("found three")}},
	}}}
	h.be.mu.Unlock()
	h.typeText("/resume")
	h.press(tea.KeyEnter, 0)
	h.waitFor("picker", func() bool { return h.contains("explore") })
	h.press(tea.KeyEnter, 0)
	h.waitFor("history", func() bool { return h.contains("all explored") })
	_, c := h.m.card("c1")
	if c == nil || c.parent == nil || c.parent.id != "task" {
		t.Fatalf("the sub-agent's Grep is not nested under its Task: %+v", c)
	}
	if c.state != toolDone || c.output != "3 matches" {
		t.Errorf("nested card state %v output %q, want done with its stored result", c.state, c.output)
	}
	scr := h.plain()
	task := strings.Index(scr, "Task(explore the repo)")
	child := strings.Index(scr, "  ● Grep(TODO)")
	if task < 0 || child < task {
		t.Fatalf("child card not nested under its Task:\n%s", scr)
	}
	for _, hidden := range []string{"CHILD PROMPT", "child thinks aloud"} {
		if strings.Contains(scr, hidden) {
			t.Errorf("the sub-agent's %q shows as part of the main conversation:\n%s", hidden, scr)
		}
	}
}

func TestOffscreenItemsDropTheirRender(t *testing.T) {
	h := newHarness(t, Options{})
	for i := 0; i < 200; i++ {
		h.send(eventsMsg{{Type: event.Text, Text: "message"}, {Type: event.Result}})
		h.m.screen()
	}
	kept := 0
	for _, it := range h.m.tr.items {
		if it.lines != nil {
			kept++
		}
	}
	if kept > h.m.tr.keepRendered+30 {
		t.Fatalf("%d of %d items keep rendered lines", kept, len(h.m.tr.items))
	}
	h.press(tea.KeyPgUp, 0)
	h.mustShow("lines below")
}

func TestStreamingAnswerRendersLikeTheFinalOne(t *testing.T) {
	h := newHarness(t, Options{})
	text := "# Title\n\nFirst paragraph with **bold**.\n\n```go\nfunc a() {\n\n}\n```\n\n- one\n- two\n\nLast line."
	for _, r := range strings.SplitAfter(text, " ") {
		h.send(eventsMsg{{Type: event.Text, Text: r}})
		h.m.tr.openText.renderedAt = time.Time{} // render every delta
		h.m.screen()
	}
	streamed := h.plain()
	h.events(event.Event{Type: event.Result})
	if final := h.plain(); final != streamed {
		t.Errorf("streamed render differs from the final one:\n%s\n---\n%s", streamed, final)
	}
	if c := stableCut(text, 0); !strings.HasPrefix(text[c:], "Last line.") {
		t.Errorf("stable cut at %q", text[c:])
	}
}

// Escape sequences from the model or a tool never reach the terminal.
func TestTerminalControlsAreStripped(t *testing.T) {
	h := newHarness(t, Options{})
	evil := "ok\x1b]52;c;ZXZpbA==\x07 \x1b[2J\x1b]0;pwned\x1b\\ done\u009b31m\x9b!"
	h.events(event.Event{Type: event.Text, Text: evil},
		event.Event{Type: event.ToolUse, ToolUseID: "t", ToolName: "Bash", Input: jsonIn(map[string]any{"command": "echo \x1b[31mred"})},
		event.Event{Type: event.ToolResult, ToolUseID: "t", Output: "out\x1b]52;c;eA==\x07put"},
		event.Event{Type: event.Error, Error: "bad\x1b[1Aup"})
	scr := h.m.screen()
	for _, bad := range []string{"]52;", "\x1b[2J", "]0;pwned", "\x9b", "\x1b[1A"} {
		if strings.Contains(scr, bad) {
			t.Fatalf("screen carries %q: %q", bad, scr)
		}
	}
	for _, want := range []string{"ok  done!", "echo red", "output", "badup"} {
		h.mustShow(want)
	}
}

// Scrolled up, the lines being read stay put while output arrives.
func TestScrolledViewStaysPutWhileStreaming(t *testing.T) {
	h := newHarness(t, Options{})
	for i := 0; i < 30; i++ {
		h.send(eventsMsg{{Type: event.Text, Text: "answer number " + string(rune('A'+i))}, {Type: event.Result}})
	}
	h.m.screen()
	h.press(tea.KeyPgUp, 0)
	top := strings.Split(h.plain(), "\n")[0]
	for i := 0; i < 5; i++ {
		h.events(event.Event{Type: event.Text, Text: "more streamed text\n\n"})
		h.m.tr.openText.renderedAt = time.Time{}
		if got := strings.Split(h.plain(), "\n")[0]; got != top {
			t.Fatalf("top line moved from %q to %q", top, got)
		}
	}
	h.press(tea.KeyPgDown, 0)
	h.press(tea.KeyPgDown, 0)
	h.mustShow("more streamed text")
	if h.contains("lines below") {
		t.Fatalf("still scrolled:\n%s", h.plain())
	}
}

func TestModelCompletionAndCompact(t *testing.T) {
	h := newHarness(t, Options{Models: func() []ModelOption {
		return []ModelOption{{ID: "anthropic/claude-sonnet-5-5"}, {ID: "openai/gpt-5"}, {ID: "anthropic/claude-haiku-4-5", Status: "legacy"}}
	}})
	h.typeText("/model hai")
	h.mustShow("anthropic/claude-haiku-4-5")
	h.mustShow("legacy") // the status is shown beside the model
	h.press(tea.KeyEnter, 0)
	h.waitFor("the model change", func() bool { f := h.be; f.mu.Lock(); defer f.mu.Unlock(); return len(f.models) == 1 })
	if got := h.be.models[0]; got != "anthropic/claude-haiku-4-5" {
		t.Fatalf("model %q", got)
	}
	// Without compaction in the runtime, /compact says so and sends nothing.
	h.typeText("/compact")
	h.press(tea.KeyEscape, 0)
	h.press(tea.KeyEnter, 0)
	h.mustShow("cannot compact")
	h.be.mu.Lock()
	h.be.info.CanCompact = true
	h.be.mu.Unlock()
	h.m.info.CanCompact = true
	h.typeText("/compact keep the API notes")
	h.press(tea.KeyEnter, 0)
	h.waitFor("a compact turn", func() bool { p := h.be.snapshot().prompts; return len(p) == 1 && p[0] == "/compact keep the API notes" })
}

func TestRunningCardShowsItsTime(t *testing.T) {
	h := newHarness(t, Options{})
	h.typeText("go")
	h.press(tea.KeyEnter, 0)
	h.waitFor("turn", func() bool { return h.m.busy })
	start := time.Now().Add(-7 * time.Second)
	h.events(event.Event{Type: event.ToolUse, ToolUseID: "t", ToolName: "Bash", Time: start, Input: jsonIn(map[string]any{"command": "make"})},
		event.Event{Type: event.PermissionRequest, RequestID: "r", ToolUseID: "t", ToolName: "Bash", Summary: "Run make"})
	h.send(tickMsg{})
	h.mustShow("Bash(make) · 7s")
	h.mustShow("waiting for your answer")
}
