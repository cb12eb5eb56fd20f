package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// writeExtensions gives the workspace one command, one skill, one agent
// and a skill with a bad field, as files the real wiring loads.
func writeExtensions(t *testing.T, ws string) {
	t.Helper()
	files := map[string]string{
		".claude/commands/fix-issue.md":     "---\ndescription: Fix an issue\nargument-hint: \"[number]\"\n---\nFix issue $ARGUMENTS.\n",
		".claude/skills/pdf-tools/SKILL.md": "---\nname: pdf-tools\ndescription: Works with PDF files.\n---\nUse pdftotext.\n",
		".claude/skills/bad/SKILL.md":       "---\nname: bad\ndescription: Has a bad effort.\neffort: enormous\n---\nBody.\n",
		".claude/agents/reader.md":          "---\nname: reader\ndescription: Reads files.\n---\nYou read files.\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Typing / offers the session's commands; a sub-agent's steps appear
// nested inside its Agent card. The bad skill file makes the new session
// emit a warning as it opens, which once sent the page into reloads (see
// TestStreamResumesRightAfterCreate); every wait here is on a condition.
func TestBrowserCommandsAndNestedSubagent(t *testing.T) {
	chromium(t)
	e := newEnv(t, nestedScript())
	writeExtensions(t, e.ws)
	var s sessionResp
	e.mustDo("POST", "/api/sessions", map[string]string{"cwd": e.ws}, 201, &s)
	ctx, cancel := newBrowser(t, 1000, 800)
	defer cancel()
	sctx, cancelS := context.WithTimeout(ctx, 120*time.Second)
	defer cancelS()
	err := chromedp.Do(sctx,
		chromedp.Navigate(e.ts.URL+"/login#token="+testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		// A query makes this a new page load, not a same-page hash change
		// (which would not open the session).
		chromedp.Navigate(e.ts.URL+"/?open#"+s.ID),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The commands load after the session opens.
	if _, err := chromedp.Run(sctx, chromedp.Poll[bool](`window.tandem.state.commands.length > 0`)); err != nil {
		why, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`String(window.tandem.state.commandsError) + " session " + (window.tandem.state.session && window.tandem.state.session.id)`))
		t.Fatalf("commands never loaded: %v (%s)", err, why)
	}
	err = chromedp.Do(sctx,
		chromedp.SendKeys(chromedp.ID("prompt"), "/fi"),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="command-list"]//button[contains(., "/fix-issue [number]")]`)),
		chromedp.KeyEvent("\t"),
	)
	if err != nil {
		dump, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("prompt").value + " :: " + document.getElementById("command-list").outerHTML`))
		t.Fatalf("%v\n%s", err, dump)
	}
	prompt, err := chromedp.Run(sctx, chromedp.Value(chromedp.ID("prompt")))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(sctx, chromedp.SendKeys(chromedp.ID("prompt"), "42\r")); err != nil {
		t.Fatal(err)
	}
	// The child's Glob card and text inside the (closed) Agent card, the
	// turn over.
	waitPage(t, ctx, agentCardJS, nestedDone)
	panel, err := chromedp.Run(sctx, chromedp.Evaluate[string](`document.getElementById('extensions-body').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pdf-tools Works with PDF files.", "reader Reads files.", "bad/SKILL.md effort:"} {
		if !strings.Contains(panel, want) {
			t.Errorf("skills panel lacks %q: %q", want, panel)
		}
	}
	if prompt != "/fix-issue " {
		t.Errorf("Tab completed the prompt to %q", prompt)
	}
	if err := chromedp.Do(sctx, chromedp.Click(chromedp.Search(`//span[@class="tool-name"][.="Agent"]`))); err != nil {
		t.Fatal(err)
	}
	shot(t, sctx, screenshotDir(t), "subagent-nested")
}
