package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// One conversation in the terminal UI, as a person has it: a streamed
// answer, an edit that lands on disk, a permission dialog answered with a
// key, Esc stopping a long command, a prompt after that continuing the
// same conversation, and quitting with the terminal restored. The session
// then resumes headless.
func TestE2ETUIConversation(t *testing.T) {
	t.Parallel()
	slow := &scripted.Fault{DelayBetweenChunksMS: 30, Always: true}
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		{Text: "Hello, I am **tandem** and this answer streams in small pieces.", Fault: slow},
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "notes.txt"})),
		scripted.ToolStep(scripted.Call("Edit", map[string]any{"file_path": "notes.txt", "old_string": "old words", "new_string": "new words"})),
		scripted.TextStep("Edited notes.txt."),
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "rm -rf build"})),
		scripted.TextStep("Cleaned the build folder."),
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "echo started; sleep 30; echo finished"})),
		scripted.TextStep("Still here after the interrupt."),
		scripted.TextStep("Resumed headless."),
	}}, scripted.WithChunkSize(6))
	x.WriteFile("notes.txt", "some old words\n")
	if err := os.MkdirAll(filepath.Join(x.Work, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := x.startTUI(100, 30, "--model", "anthropic/claude-sonnet-5-5")
	p.waitText("Ask tandem")
	if p.flag("alternate_on") != "1" {
		t.Fatal("the UI did not take the alternate screen")
	}

	// A streamed Markdown answer; the terminal shrinks to 80x24 while it
	// streams and the layout follows without garbage.
	p.typeText("hello")
	p.keys("Enter")
	p.tmux("resize-window", "-t", "t", "-x", "80", "-y", "24")
	scr := p.waitText("this answer streams in small pieces.")
	if strings.Contains(scr, "**tandem**") {
		t.Errorf("Markdown shown raw:\n%s", scr)
	}
	scr = p.waitFor("the 80x24 layout", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return len(lines) == 24 && strings.Contains(lines[23], "normal") && strings.HasPrefix(lines[21], "────")
	})
	if strings.Count(scr, "this answer streams") != 1 || strings.Count(scr, "› hello") != 1 {
		t.Errorf("garbled redraw after resize:\n%s", scr)
	}

	// An edit lands on disk and its diff is shown.
	p.typeText("fix the notes")
	p.keys("Enter")
	p.waitText("Edited notes.txt.")
	if got := x.ReadFile("notes.txt"); got != "some new words\n" {
		t.Fatalf("notes.txt = %q; screen:\n%s", got, p.screen())
	}
	p.waitText("+some new words")

	// /rewind puts the file and the conversation back to before that
	// prompt, and the prompt back in the editor; sending it again redoes
	// the edit (the scripted model answers by the conversation's length).
	p.typeText("/rewind")
	p.keys("Enter")
	p.waitText("Rewind to before a prompt")
	p.waitText("fix the notes")
	p.keys("Enter")
	p.waitText("[b] files and conversation")
	p.keys("b")
	p.waitText("Rewound to before prompt 2")
	if got := x.ReadFile("notes.txt"); got != "some old words\n" {
		t.Fatalf("notes.txt after /rewind = %q; screen:\n%s", got, p.screen())
	}
	if scr := p.screen(); strings.Contains(scr, "Edited notes.txt.") {
		t.Errorf("the rewound turn is still shown:\n%s", scr)
	}
	p.keys("Enter") // the prompt, back in the editor
	p.waitText("Edited notes.txt.")
	if got := x.ReadFile("notes.txt"); got != "some new words\n" {
		t.Fatalf("notes.txt after sending the prompt again = %q", got)
	}

	// A permission dialog answered with a key.
	p.typeText("clean up")
	p.keys("Enter")
	p.waitText("tandem wants to")
	p.waitText("[y] allow once")
	if !fileExists(filepath.Join(x.Work, "build")) {
		t.Fatal("build removed before the answer")
	}
	p.keys("y")
	p.waitText("Cleaned the build folder.")
	if fileExists(filepath.Join(x.Work, "build")) {
		t.Fatal("build still there after allow once")
	}

	// Esc interrupts a long command; the UI stays usable.
	p.typeText("run the long job")
	p.keys("Enter")
	scr = p.waitFor("the long command to run or ask", func(s string) bool {
		return strings.Contains(s, "started") || strings.Contains(s, "tandem wants to")
	})
	if strings.Contains(scr, "tandem wants to") {
		p.waitText("[y] allow once") // the dialog takes keys a moment after it appears
		p.keys("y")
		p.waitText("started")
	}
	p.keys("Escape")
	p.waitText("Interrupted")
	p.waitText("/help")

	// The next prompt continues the same conversation: the scripted model
	// picks its reply by the number of assistant messages it is sent.
	p.typeText("are you there?")
	p.keys("Enter")
	p.waitText("Still here after the interrupt.")

	// Ctrl+C twice quits and gives the terminal back.
	p.keys("C-c")
	p.waitText("press ctrl+c again to quit")
	p.keys("C-c")
	scr = p.waitText("TANDEM-EXITED:0")
	if p.flag("alternate_on") != "0" || p.flag("cursor_flag") != "1" {
		t.Errorf("terminal not restored: alternate_on=%s cursor_flag=%s", p.flag("alternate_on"), p.flag("cursor_flag"))
	}
	m := regexp.MustCompile(`tandem --resume (\S+)`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no resume hint after quitting:\n%s", scr)
	}
	id := m[1]

	// The session the UI held resumes headless.
	r := x.RunDetached("run", "--resume", id, "-p", "and now?", "--output-format", "stream-json")
	mustSucceed(t, r)
	if got := r.Result().Result; got != "Resumed headless." {
		t.Fatalf("resumed run answered %q (wrong conversation?)", got)
	}
}

// Without a terminal `tandem` keeps printing the help, and -p runs headless.
func TestE2ERootWithoutTerminal(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("headless answer")}})
	r := x.RunDetached()
	if r.Code != 0 || !strings.Contains(r.Stdout, "Usage:") {
		t.Fatalf("no help without a terminal (exit %d):\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = x.RunDetached("-p", "hi", "--model", "anthropic/claude-sonnet-5-5")
	if r.Code != 0 || !strings.Contains(r.Stdout, "headless answer") {
		t.Fatalf("tandem -p did not run headless (exit %d):\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// A headless session continues in the UI, history shown, and a denial
// typed in the dialog reaches the model with its reason.
func TestE2ETUIContinuesHeadlessSessionAndDenies(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("First answer, from a headless run."),
		scripted.ToolStep(scripted.Call("Bash", map[string]any{"command": "rm -rf build"})),
		scripted.TextStep("Understood, leaving build alone."),
	}})
	if err := os.MkdirAll(filepath.Join(x.Work, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustSucceed(t, x.RunDetached(streamArgs("first question")...))

	p := x.startTUI(90, 28, "--continue")
	p.waitText("First answer, from a headless run.")
	p.waitText("› first question")
	p.typeText("clean up")
	p.keys("Enter")
	p.waitText("[n] deny")
	p.keys("n")
	p.waitText("Tell the model why")
	p.typeText("use make clean instead")
	p.keys("Enter")
	p.waitText("Understood, leaving build alone.")
	if !fileExists(filepath.Join(x.Work, "build")) {
		t.Fatal("build removed although denied")
	}
	if body := x.lastRequestBody(); !strings.Contains(body, "use make clean instead") {
		t.Errorf("the model was not told the reason:\n%s", body)
	}
	p.keys("C-d")
	p.waitText("TANDEM-EXITED:0")
	if p.flag("alternate_on") != "0" {
		t.Error("alternate screen still on after ctrl+d")
	}
}

// A folder whose project files need trust is asked about before the UI
// opens, as Claude Code asks, listing what trusting would enable; yes
// trusts it (stored: `tandem trust --list` has it) and the chat starts
// with those settings (the project's allow rule runs its rm unasked), no
// starts it without them (the conversation says which), and no under
// --require-trust starts nothing.
func TestE2ETUIAsksToTrustTheFolder(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("rm1", "Bash", map[string]any{"command": "rm victim.txt"})),
		scripted.TextStep("trusted now")}})
	x.WriteFile(".claude/settings.json", `{"permissions": {"allow": ["Bash(rm:*)"]}}`)
	x.WriteFile("victim.txt", "remove me\n")
	p := x.startTUI(100, 30, "--model", "anthropic/claude-sonnet-5-5")
	p.waitText("Do you trust the files in")
	p.waitText("permissions.allow")
	p.typeText("y")
	p.keys("Enter")
	p.waitText("Ask tandem")
	// /model shows a legacy model's status beside it; choosing it works.
	p.typeText("/model claude-opus-4-8")
	p.waitFor("the legacy model's status", func(s string) bool {
		return regexp.MustCompile(`anthropic/claude-opus-4-8\s+legacy`).MatchString(s)
	})
	p.keys("Enter")
	p.typeText("hi")
	p.keys("Enter")
	p.waitText("trusted now")
	p.keys("C-d")
	p.waitText("TANDEM-EXITED:0")
	if fileExists(filepath.Join(x.Work, "victim.txt")) {
		t.Error("trusted, the project's allow rule did not apply: rm victim.txt did not run")
	}
	if l := x.Run("trust", "--list"); !strings.Contains(l.Stdout, x.Work) {
		t.Errorf("accepting the dialog did not store the trust:\n%s%s", l.Stdout, l.Stderr)
	}

	// Declined: the session starts without the allow rule, and says so.
	y := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("untrusted run")}})
	y.WriteFile(".claude/settings.json", `{"permissions": {"allow": ["Bash(rm:*)"]}}`)
	q := y.startTUI(100, 30, "--model", "anthropic/claude-sonnet-5-5")
	q.waitText("Do you trust the files in")
	q.keys("Enter")
	q.waitText("Ask tandem")
	q.waitText("is not trusted")
	q.typeText("hi")
	q.keys("Enter")
	q.waitText("untrusted run")
	q.keys("C-d")
	q.waitText("TANDEM-EXITED:0")

	// --require-trust: declined, nothing starts.
	z := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("never")}})
	z.WriteFile(".claude/settings.json", `{"permissions": {"allow": ["Bash(rm:*)"]}}`)
	r := z.startTUI(100, 30, "--model", "anthropic/claude-sonnet-5-5", "--require-trust")
	r.waitText("Do you trust the files in")
	r.keys("Enter")
	r.waitText("Nothing was started")
	r.waitText("TANDEM-EXITED:1")
}

// /mcp in the terminal UI over a real MCP server: the project's server
// waits for approval; approving it there connects it and its tools show.
// Then /permissions why, from the session's permission engine.
func TestE2ETUIMCPPanel(t *testing.T) {
	t.Parallel()
	bin := testdepBin(t, "mcp-server-everything")
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	writeJSONFile(t, filepath.Join(x.Work, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": bin}}})
	p := x.startTUI(110, 30, "--model", "anthropic/claude-sonnet-5-5")
	p.waitText("Ask tandem")
	p.typeText("/mcp")
	p.keys("Enter")
	p.waitText("MCP servers")
	p.waitText("needs approval (a)")
	p.keys("a")
	scr := p.waitFor("the server to connect", func(s string) bool {
		return regexp.MustCompile(`everything\s+stdio\s+connected\s+\d+ tools`).MatchString(s)
	})
	if !strings.Contains(scr, "approve everything: done") {
		t.Errorf("no word of the approval:\n%s", scr)
	}
	p.keys("Enter")
	p.waitText("tools: mcp__everything__")
	p.keys("Escape")
	p.waitFor("the panel to close", func(s string) bool { return !strings.Contains(s, "MCP servers") })

	// /permissions why judges with the session's own engine.
	p.typeText("/permissions why rm -rf build")
	p.keys("Enter")
	p.waitText("rm -rf build → ask (mode:normal)")
}
